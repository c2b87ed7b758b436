/** A step's output file (`name=value` lines and `name<<DELIM` blocks), read as GITHUB_OUTPUT is read. Pure. */

/** Parses a `name=value` / `name<<DELIM` output file, as GITHUB_OUTPUT works. */
export function parseOutputFile(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.trim()) continue;
    // As the runner reads it: `<<` before any `=` starts a heredoc; names are checked by the caller.
    const heredoc = /^([^=]*?)<<(.+)$/.exec(line);
    if (heredoc) {
      const delim = heredoc[2]!;
      const body: string[] = [];
      i++;
      while (i < lines.length && lines[i] !== delim) body.push(lines[i++]!);
      out[heredoc[1]!] = body.join('\n');
      continue;
    }
    const eq = line.indexOf('=');
    if (eq > 0) out[line.slice(0, eq)] = line.slice(eq + 1);
  }
  return out;
}
