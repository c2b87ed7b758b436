// The README's inputs and outputs tables, written from action.yml (npm run docs), so the two cannot differ. Each
// description's first sentence is the table cell; the rest of it is listed below the table.
import { parse } from 'yaml';

const START = '<!-- action.yml: inputs and outputs (npm run docs writes this block from action.yml) -->';
const END = '<!-- end of action.yml block -->';

interface Entry {
  description: string;
  default?: string;
}
interface ActionMetadata {
  inputs?: Record<string, Entry>;
  outputs?: Record<string, Entry>;
}

/** The first sentence (up to the first ". "), and the rest. */
export function splitDescription(text: string): { summary: string; rest: string } {
  const flat = text.replace(/\s+/g, ' ').trim();
  const cut = flat.indexOf('. ');
  return cut < 0
    ? { summary: flat, rest: '' }
    : { summary: flat.slice(0, cut + 1), rest: flat.slice(cut + 2) };
}

const code = (s: string) => (s === '' ? '(empty)' : `\`${s}\``);

function details(entries: Array<[string, Entry]>): string[] {
  return entries
    .map(([name, e]) => [name, splitDescription(e.description).rest] as const)
    .filter(([, rest]) => rest)
    .map(([name, rest]) => `- \`${name}\`: ${rest}`);
}

/** The block between the markers: both tables and the details under each. */
export function actionTables(actionYml: string): string {
  const meta = parse(actionYml) as ActionMetadata;
  const inputs = Object.entries(meta.inputs ?? {});
  const outputs = Object.entries(meta.outputs ?? {});
  const lines = [
    START,
    '',
    '| input | default | what it is |',
    '| --- | --- | --- |',
    ...inputs.map(
      ([n, e]) => `| \`${n}\` | ${code(e.default ?? '')} | ${splitDescription(e.description).summary} |`,
    ),
    '',
    ...details(inputs),
    '',
    '| output | what it is |',
    '| --- | --- |',
    ...outputs.map(([n, e]) => `| \`${n}\` | ${splitDescription(e.description).summary} |`),
    '',
    ...details(outputs),
    '',
    END,
  ];
  return lines.join('\n').replace(/\n{3,}/g, '\n\n');
}

/** The README with its action.yml block written afresh; throws when the markers are missing. */
export function withActionTables(readme: string, actionYml: string): string {
  const start = readme.indexOf(START);
  const end = readme.indexOf(END);
  if (start < 0 || end < start)
    throw new Error(
      `README.md: the markers "${START}" and "${END}" are missing; put them where the tables go`,
    );
  return readme.slice(0, start) + actionTables(actionYml) + readme.slice(end + END.length);
}
