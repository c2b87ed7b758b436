// The deputy table (issue 34): a node aims one of the files interlock shares with it at something else (a link to
// /proc/self/environ, to a root-only file, to the action's bundle; a FIFO; /dev/zero; a 1 GB sparse file; a
// folder), then a `command` check runs (interlock used to grant the attempt's files again for it, by path). Each
// row is one node of one graph, run by test/reliability/hostile-deputy.test.ts through the bundled action. The
// chain rows: a serialized session of two nodes whose one agent call (a stand-in for Claude Code that prints its
// JSON result) replaces the second node's `$INTERLOCK_OUTPUTS/<node>`.

/** The attempt files a node may aim, by the variable that names each. */
export const DEPUTY_FILES = [
  { key: 'output', variable: 'INTERLOCK_OUTPUT', read: true },
  { key: 'context', variable: 'INTERLOCK_CONTEXT', read: false },
  { key: 'usage', variable: 'INTERLOCK_USAGE', read: true },
  { key: 'chain', variable: 'INTERLOCK_OUTPUTS/<node>', read: true },
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
  /** The node whose attempt the row judges (a chain's second node). */
  id: string;
  /** The file as a failure names it. */
  named: string;
  file: (typeof DEPUTY_FILES)[number];
  plant: (typeof DEPUTY_PLANTS)[number];
}

export const DEPUTY_ROWS: DeputyRow[] = DEPUTY_FILES.flatMap((file) =>
  DEPUTY_PLANTS.map((plant) => {
    const id = file.key === 'chain' ? `chain-${plant.key}-b` : `${file.key}-${plant.key}`;
    const named = file.key === 'chain' ? `$INTERLOCK_OUTPUTS/${id}` : `$${file.variable}`;
    return { id, named, file, plant };
  }),
);

/**
 * The stand-in agent of the chains: in a chain's call (and only there) it replaces `$INTERLOCK_OUTPUTS/$MEMBER`
 * as `$PLANT` says, reports whether it could, and prints a Claude Code result.
 */
export const CHAIN_AGENT = `#!/usr/bin/env bash
cat > /dev/null
if [ -n "$INTERLOCK_OUTPUTS" ]; then
  F="$INTERLOCK_OUTPUTS/$MEMBER"
  case "$PLANT" in
${DEPUTY_PLANTS.map((p) => `    ${p.key}) plant() { ${p.plant}; } ;;`).join('\n')}
  esac
  if plant 2>/dev/null; then echo "$MEMBER planted" >> "$DEPUTY_REPORT"; else echo "$MEMBER refused" >> "$DEPUTY_REPORT"; fi
fi
echo '{"type":"result","subtype":"success","is_error":false,"result":"done","num_turns":1,"session_id":"'"$(cat /proc/sys/kernel/random/uuid)"'"}'
`;

/** The chains: one serialized session per plant, two nodes each, the call's agent the stand-in. */
function chains(): { sessions: string; nodes: string } {
  const rows = DEPUTY_ROWS.filter((r) => r.file.key === 'chain');
  return {
    sessions: rows.map((r) => `  s-${r.plant.key}: { serialized: true }\n`).join(''),
    nodes: rows
      .map(
        (r) => `  - id: chain-${r.plant.key}
    session: s-${r.plant.key}
    engine: claude-code
    agent: bash chain-agent.sh
    env: { PLANT: ${r.plant.key}, MEMBER: ${r.id} }
    prompt: The first node of the chain.
  - id: ${r.id}
    depends_on: [chain-${r.plant.key}]
    session: s-${r.plant.key}
    engine: claude-code
    agent: bash chain-agent.sh
    env: { PLANT: ${r.plant.key}, MEMBER: ${r.id} }
    prompt: The second node of the chain.
`,
      )
      .join(''),
  };
}

/** One node per row: it plants (reporting whether it could), exits 0, and has a `command` check. */
export function deputyGraph(): string {
  const nodes = DEPUTY_ROWS.filter((r) => r.file.key !== 'chain').map(
    (r) => `  - id: ${r.id}
    run: |
      F="$${r.file.variable}"
      if { ${r.plant.plant}; } 2>/dev/null; then echo "${r.id} planted" >> "$DEPUTY_REPORT"; else echo "${r.id} refused" >> "$DEPUTY_REPORT"; fi
    validates:
      - command: "true"
`,
  );
  const c = chains();
  return `interlock: 1\nname: hostile-deputy\nsessions:\n${c.sessions}nodes:\n${nodes.join('')}${LEAK_NODE}${c.nodes}`;
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
export function expected(r: DeputyRow): { planted: boolean; failure?: string } {
  // The attempt's folder is interlock's: a node writes into its files, it cannot replace one.
  if (r.plant.key !== 'sparse') return { planted: false };
  if (!r.file.read) return { planted: true };
  const bound = r.file.key === 'usage' ? 65536 : 1048576;
  return {
    planted: true,
    failure: `${r.named}: holds 1073741824 bytes, more than the ${bound} interlock reads`,
  };
}

/** What one row came to, in the table's words. */
export function rowOutcome(r: DeputyRow, planted: boolean, failures: string[]): string {
  if (!planted) return "refused: the folder is interlock's, the node cannot replace the file";
  const mine = failures.find((f) => f.startsWith(`${r.named}:`));
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
