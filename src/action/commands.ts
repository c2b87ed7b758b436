import { randomUUID } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { EOL } from 'node:os';

/**
 * The runner's workflow commands, written as GitHub documents them: annotations on stdout, outputs, state and the
 * job summary through the files the runner names. A few lines of our own instead of `@actions/core`, whose
 * HTTP client (for OIDC tokens we never ask for) doubles the bundle and its start-up time.
 */

function escapeData(s: string): string {
  return s.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

function escapeProperty(s: string): string {
  return escapeData(s).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

interface AnnotationWhere {
  file: string;
  line: number;
  col: number;
}

/** `::warning file=…,line=…,col=…::message` and its kin. */
export function command(
  name: 'error' | 'warning' | 'notice' | 'debug',
  message: string,
  where?: AnnotationWhere,
): string {
  const props = where ? ` file=${escapeProperty(where.file)},line=${where.line},col=${where.col}` : '';
  return `::${name}${props}::${escapeData(message)}${EOL}`;
}

/** `name<<delimiter` … `delimiter`, so values may hold newlines; the delimiter never occurs in the value. */
export function fileCommand(name: string, value: string): string {
  // The runner splits a line at its first `=` or `<<`: a name holding either (or a line break) breaks the file.
  if (!/^[A-Za-z_][A-Za-z0-9_-]*$/.test(name))
    throw new Error(
      `"${name.slice(0, 80)}" cannot be written to a runner file: names use letters, digits, "_" and "-"`,
    );
  let delimiter = `ghadelimiter_${randomUUID()}`;
  while (name.includes(delimiter) || value.includes(delimiter)) delimiter = `ghadelimiter_${randomUUID()}`;
  return `${name}<<${delimiter}${EOL}${value}${EOL}${delimiter}${EOL}`;
}

/** Appends to the file the runner names in `variable`; throws when the runner named none. */
export function appendToRunnerFile(env: NodeJS.ProcessEnv, variable: string, text: string): void {
  const path = env[variable];
  if (!path) throw new Error(`${variable} is not set: this does not look like a GitHub Actions step`);
  appendFileSync(path, text, 'utf8');
}
