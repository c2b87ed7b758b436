/**
 * The rule for output names: the node id pattern. A name is written to GITHUB_OUTPUT as `output-<name>` and read
 * back by expressions (`nodes.<id>.outputs.<name>`), so anything else (`.x<<`, a newline, `=`) could break the
 * step's output file or read as another output. Pure: the engine, the journal schema and the docs share it.
 */
import { ID_PATTERN } from '../../graph/schema/check.js';

export const OUTPUT_NAME_PATTERN = ID_PATTERN;

export const OUTPUT_NAME_RULE =
  'output names use letters, digits, "_" and "-", start with a letter or "_", at most 64 characters';

/** Why `name` may not be an output name, or undefined when it may. */
function outputNameProblem(name: string): string | undefined {
  if (OUTPUT_NAME_PATTERN.test(name)) return undefined;
  return `output name ${JSON.stringify(name.slice(0, 80))} was refused: ${OUTPUT_NAME_RULE}`;
}

/** Splits what a command wrote to `$INTERLOCK_OUTPUT` into the outputs it may set and one failure per bad name. */
export function splitOutputs(raw: Record<string, string>): {
  outputs: Record<string, string>;
  failures: { check: string; message: string }[];
} {
  const outputs: Record<string, string> = {};
  const failures: { check: string; message: string }[] = [];
  for (const [name, value] of Object.entries(raw)) {
    const problem = outputNameProblem(name);
    if (problem)
      failures.push({
        check: 'outputs',
        message: `${problem} (fix the name the command writes to $INTERLOCK_OUTPUT)`,
      });
    else outputs[name] = value;
  }
  return { outputs, failures };
}
