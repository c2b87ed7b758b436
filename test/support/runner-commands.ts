/**
 * What the GitHub Actions runner would do with a step's log and its file commands, written from reading
 * actions/runner (src/Runner.Common/ActionCommand.cs: `TryParseV2`, the legacy `TryParse`;
 * src/Runner.Worker/ActionCommandManager.cs: the registered commands and `stop-commands`;
 * src/Runner.Worker/FileCommandManager.cs: `name=value` and `name<<DELIM` in GITHUB_OUTPUT). Tests use it to ask
 * what a log line would have done, instead of guessing with a regular expression.
 *
 * One known difference: the runner compares `::` and `##[` with .NET's culture-sensitive `StartsWith` and
 * `IndexOf`, which skip zero-width characters under ICU; here the comparison is ordinal. A zero-width character
 * inside the prefix still leaves the runner with a command name that starts with `:` or `[`, which no command has.
 */

/** The characters .NET's `Char.IsWhiteSpace` accepts, which `string.TrimStart()` and `Trim()` remove. */
const DOTNET_WHITESPACE = new Set([
  ...'\t\n\v\f\r \u0085\u00a0\u1680\u2028\u2029\u202f\u205f\u3000',
  ...Array.from({ length: 11 }, (_, i) => String.fromCharCode(0x2000 + i)),
]);

export function dotnetTrimStart(s: string): string {
  let i = 0;
  while (i < s.length && DOTNET_WHITESPACE.has(s[i]!)) i++;
  return s.slice(i);
}

export function dotnetTrim(s: string): string {
  let end = s.length;
  while (end > 0 && DOTNET_WHITESPACE.has(s[end - 1]!)) end--;
  return dotnetTrimStart(s.slice(0, end));
}

/** Every command the runner registers for a step (`internal-set-repo-path` only for its own plugins). */
export const RUNNER_COMMANDS = [
  'stop-commands',
  'set-env',
  'set-output',
  'save-state',
  'add-mask',
  'add-path',
  'add-matcher',
  'remove-matcher',
  'debug',
  'warning',
  'error',
  'notice',
  'group',
  'endgroup',
  'echo',
] as const;

export interface ParsedCommand {
  /** As written in the line; the runner matches names ignoring case. */
  command: string;
  /** Property names in lower case (the runner's dictionary ignores case). */
  properties: Record<string, string>;
  data: string;
}

type Mapping = readonly (readonly [token: string, replacement: string])[];
const LEGACY: Mapping = [
  [';', '%3B'],
  ['\r', '%0D'],
  ['\n', '%0A'],
  [']', '%5D'],
  ['%', '%25'],
];
const V2_DATA: Mapping = [
  ['\r', '%0D'],
  ['\n', '%0A'],
  ['%', '%25'],
];
const V2_PROPERTY: Mapping = [
  ['\r', '%0D'],
  ['\n', '%0A'],
  [':', '%3A'],
  [',', '%2C'],
  ['%', '%25'],
];

/** The runner unescapes by replacing each mapping in order, `%25` last. */
function unescapeWith(s: string, mapping: Mapping): string {
  let out = s;
  for (const [token, replacement] of mapping) out = out.split(replacement).join(token);
  return out;
}

/** .NET `Split(sep, count: 2, RemoveEmptyEntries)`: empty pieces dropped, adjacent separators skipped. */
function splitPair(s: string, sep: string): string[] {
  let i = 0;
  while (i < s.length && s[i] === sep) i++;
  const rest = s.slice(i);
  if (!rest) return [];
  const at = rest.indexOf(sep);
  if (at < 0) return [rest];
  let j = at;
  while (j < rest.length && rest[j] === sep) j++;
  const tail = rest.slice(j);
  return tail ? [rest.slice(0, at), tail] : [rest.slice(0, at)];
}

function properties(text: string, sep: string, mapping: Mapping): Record<string, string> {
  const out: Record<string, string> = {};
  for (const piece of text.split(sep).filter((p) => p !== '')) {
    const pair = splitPair(piece, '=');
    if (pair.length === 2) out[pair[0]!.toLowerCase()] = unescapeWith(pair[1]!, mapping);
  }
  return out;
}

/** Splits `cmdInfo` into the command name and what follows its first space. */
function nameOf(
  cmdInfo: string,
  registered: ReadonlySet<string>,
): { name: string; rest?: string } | undefined {
  const space = cmdInfo.indexOf(' ');
  const name = space < 0 ? cmdInfo : cmdInfo.slice(0, space);
  if (!registered.has(name.toLowerCase())) return undefined;
  return space > 0 ? { name, rest: cmdInfo.slice(space + 1) } : { name };
}

/** `TryParseV2`: `::name k=v,k=v::data` at the start of the line after .NET whitespace. */
export function parseV2(line: string, registered: ReadonlySet<string>): ParsedCommand | undefined {
  const message = dotnetTrimStart(line);
  if (!message.startsWith('::')) return undefined;
  const end = message.indexOf('::', 2);
  if (end < 0) return undefined;
  const named = nameOf(message.slice(2, end), registered);
  if (!named) return undefined;
  return {
    command: named.name,
    properties: named.rest === undefined ? {} : properties(dotnetTrim(named.rest), ',', V2_PROPERTY),
    data: unescapeWith(message.slice(end + 2), V2_DATA),
  };
}

/** The legacy `TryParse`: `##[name k=v;k=v]data` anywhere in the line. */
export function parseLegacy(line: string, registered: ReadonlySet<string>): ParsedCommand | undefined {
  const prefix = line.indexOf('##[');
  if (prefix < 0) return undefined;
  const rb = line.indexOf(']', prefix);
  if (rb < 0) return undefined;
  const named = nameOf(line.slice(prefix + 3, rb), registered);
  if (!named) return undefined;
  return {
    command: named.name,
    properties: named.rest === undefined ? {} : properties(named.rest, ';', LEGACY),
    data: unescapeWith(line.slice(rb + 1), LEGACY),
  };
}

/** The runner reads a child's output with `StreamReader.ReadLine`: `\r`, `\n` and `\r\n` all end a line. */
export function runnerLines(text: string): string[] {
  const lines = text.split(/\r\n|\r|\n/);
  if (lines.at(-1) === '') lines.pop();
  return lines;
}

/** A `GITHUB_OUTPUT`-style file as the runner reads it: the pairs it set, and the error that stopped it. */
export function parseRunnerFile(text: string): { pairs: [string, string][]; error?: string } {
  const pairs: [string, string][] = [];
  const lines = text.split('\n');
  const hasNewline = (i: number) => i < lines.length - 1;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (line === '' && !hasNewline(i)) break;
    if (line === '') continue;
    const eq = line.indexOf('=');
    const heredoc = line.indexOf('<<');
    if (eq >= 0 && (heredoc < 0 || eq < heredoc)) {
      pairs.push([line.slice(0, eq), line.slice(eq + 1)]);
      continue;
    }
    if (heredoc < 0) return { pairs, error: `Invalid format '${line}'` };
    const key = line.slice(0, heredoc);
    const delimiter = line.slice(heredoc + 2);
    if (!key || !delimiter)
      return {
        pairs,
        error: `Invalid format '${line}'. Name must not be empty and delimiter must not be empty`,
      };
    const body: string[] = [];
    let j = i + 1;
    for (; ; j++) {
      if (j >= lines.length || (j === lines.length - 1 && lines[j] === ''))
        return { pairs, error: `Invalid value. Matching delimiter not found '${delimiter}'` };
      if (lines[j] === delimiter) break;
      if (!hasNewline(j)) return { pairs, error: 'Invalid value. EOF marker missing new line.' };
      body.push(lines[j]!);
    }
    pairs.push([key, body.join('\n')]);
    i = j;
  }
  return { pairs };
}
