// The deputy table (issue 34): a node aims one of the files interlock shares with it at something else (a link to
// /proc/self/environ, to a root-only file, to the action's bundle; a FIFO; /dev/zero; a 1 GB sparse file; a
// folder), then a `command` check runs (interlock used to grant the attempt's files again for it, by path). Each
// row is one node of one graph, run by test/reliability/hostile-deputy.test.ts through the bundled action.

/** The attempt files a node may aim, by the variable that names each. */
export const DEPUTY_FILES = [
  { key: 'output', variable: 'INTERLOCK_OUTPUT', read: true },
  { key: 'context', variable: 'INTERLOCK_CONTEXT', read: false },
  { key: 'usage', variable: 'INTERLOCK_USAGE', read: true },
] as const;

/** How a node replaces the file; `$F` is the file, `$ROOT_ONLY` and `$BUNDLE` the targets the test made. */
export const DEPUTY_PLANTS = [
  { key: 'environ', what: 'a link to /proc/self/environ', plant: 'ln -sf /proc/self/environ "$F"' },
  { key: 'root-only', what: 'a link to a root-only file', plant: 'ln -sf "$ROOT_ONLY" "$F"' },
  { key: 'bundle', what: "a link to the action's bundle", plant: 'ln -sf "$BUNDLE" "$F"' },
  { key: 'fifo', what: 'a FIFO', plant: 'rm -f "$F" && mkfifo "$F"' },
  { key: 'dev-zero', what: 'a link to /dev/zero', plant: 'ln -sf /dev/zero "$F"' },
  { key: 'sparse', what: 'a 1 GB sparse file', plant: 'truncate -s 1G "$F"' },
  { key: 'folder', what: 'a folder', plant: 'rm -f "$F" && mkdir "$F"' },
] as const;

export interface DeputyRow {
  id: string;
  file: (typeof DEPUTY_FILES)[number];
  plant: (typeof DEPUTY_PLANTS)[number];
}

export const DEPUTY_ROWS: DeputyRow[] = DEPUTY_FILES.flatMap((file) =>
  DEPUTY_PLANTS.map((plant) => ({ id: `${file.key}-${plant.key}`, file, plant })),
);

/** One node per row: it plants (reporting whether it could), exits 0, and has a `command` check. */
export function deputyGraph(): string {
  const nodes = DEPUTY_ROWS.map(
    (r) => `  - id: ${r.id}
    run: |
      F="$${r.file.variable}"
      if { ${r.plant.plant}; } 2>/dev/null; then echo "${r.id} planted" >> "$DEPUTY_REPORT"; else echo "${r.id} refused" >> "$DEPUTY_REPORT"; fi
    validates:
      - command: "true"
`,
  );
  return `interlock: 1\nname: hostile-deputy\nnodes:\n${nodes.join('')}${LEAK_NODE}`;
}

/**
 * A node granted `NPM_TOKEN` that records it: as an output, base64-encoded as another, and in the output of its
 * failed command. The journal must hold none of them.
 */
export const LEAK_NODE = `  - id: leak
    run: |
      echo "npm=$NPM_TOKEN" >> "$INTERLOCK_OUTPUT"
      echo "npm64=$(printf 'prefix:%s' "$NPM_TOKEN" | base64 -w0)" >> "$INTERLOCK_OUTPUT"
  - id: leak-fails
    run: |
      echo "error: the token is $NPM_TOKEN" >&2
      exit 1
`;

/** What a row must come to: the node could not plant, or interlock failed the attempt naming the file. */
export function expected(r: DeputyRow): { planted: boolean; failure?: RegExp } {
  // The attempt's folder is interlock's: a node writes into its files, it cannot replace one.
  if (r.plant.key !== 'sparse') return { planted: false };
  if (!r.file.read) return { planted: true };
  const bound = r.file.key === 'usage' ? 65536 : 1048576;
  return {
    planted: true,
    failure: new RegExp(
      `^\\$${r.file.variable}: holds 1073741824 bytes, more than the ${bound} interlock reads$`,
    ),
  };
}

/** What one row came to, in the table's words. */
export function rowOutcome(r: DeputyRow, planted: boolean, failures: string[]): string {
  if (!planted) return "refused: the folder is interlock's, the node cannot replace the file";
  const mine = failures.find((f) => f.includes(`$${r.file.variable}`));
  if (mine) return `the attempt fails: ${mine}`;
  return r.file.read ? 'read' : 'interlock does not read it back';
}

/** The table for docs/RELIABILITY.md: one row per file and plant, as root and through sudo. */
export function deputyTable(out: { root: string[]; sudo: string[] }): string {
  const lines = [
    '| the node replaces | with | as root | through passwordless sudo |',
    '| --- | --- | --- | --- |',
    ...DEPUTY_ROWS.map(
      (r, i) =>
        `| \`$${r.file.variable}\` | ${r.plant.what} | ${out.root[i] ?? 'not run'} | ${out.sudo[i] ?? 'not run'} |`,
    ),
  ];
  return lines.join('\n');
}
