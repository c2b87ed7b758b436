// The deputy table (issue 34): a node aims one of the files interlock shares with it at something else (a link to
// /proc/self/environ, to a root-only file, to the action's bundle; a FIFO; /dev/zero; a 1 GB sparse file; a
// folder), then a `command` check runs (interlock used to grant the attempt's files again for it, by path). Each
// row is one node of one graph, run by test/reliability/hostile-deputy.test.ts through the bundled action. The
// chain rows: a serialized session of two nodes whose one agent call (a stand-in for Claude Code that prints its
// JSON result) replaces the second node's `$INTERLOCK_OUTPUTS/<node>`. The second round's rows (issue 46,
// `OUTLASTING`) each name the test file that proves them. `deputyTable()` makes both of docs/RELIABILITY.md's
// tables from these rows (test/docs/deputy-table.test.ts compares them).

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

/** What the table says a row comes to, as root and through sudo alike (what a run that holds writes). */
export function expectedOutcome(r: DeputyRow): string {
  const want = expected(r);
  return rowOutcome(r, want.planted, want.failure ? [want.failure] : []);
}

/** What one row came to, in the table's words. */
export function rowOutcome(r: DeputyRow, planted: boolean, failures: string[]): string {
  if (!planted) return "refused: the folder is interlock's, the node cannot replace the file";
  const mine = failures.find((f) => f.startsWith(`${r.named}:`));
  if (mine) return `the attempt fails: ${mine}`;
  return r.file.read ? 'read' : 'interlock does not read it back';
}

/**
 * The deputy table's second round (issue 46): what a node (or, for the login, another person) aims at beyond the
 * attempt's files. Each row is proved by its test file: `pick` names the tests of each column, as `npm run
 * reliability -- --only hostile` counts them; a column with no pick does not run so, and its text says why. docs/RELIABILITY.md holds
 * deputyTable()'s tables, and test/docs/deputy-table.test.ts fails when they differ, when a row's test file does
 * not hold its picks, and when a test file that says it is of issue 46 is no row's.
 */
export interface OutlastingRow {
  /** What is tried (the table's first column). */
  attack: string;
  root: string;
  sudo: string;
  /** What it came to before the fix (or with the fix removed). */
  before: string;
  test: string;
  /** The row's line in `npm run reliability`. */
  what: string;
  /**
   * The tests of each column by a piece of their describe and test titles (`any`: tests whose outcome does not
   * depend on the runner's user, in place of `root` and `sudo`), and `test` a piece of the test's own title.
   */
  pick: { root?: string; sudo?: string; any?: string; test?: string };
}

const SAME = 'the same';
const NO_NODE_USER = 'the same code: no node user is involved';

export const OUTLASTING: OutlastingRow[] = [
  {
    attack:
      "a node replaces a submodule's git folder, `.git/modules`, or a git folder a node made (`.git/modules/new`, `.git/worktrees/wt`) with a link to a root-owned folder",
    root: 'nothing written through it (a folder a node made was recorded when met); the later node escalates naming the folder',
    sudo: SAME,
    before:
      "the guard deleted and rewrote the root-owned folder's hooks, info and config; a swapped folder a node made went unnoticed",
    test: 'test/reliability/hostile-git-modules.test.ts',
    what: "a node replaces a git folder (a submodule's, one it made, a worktree's it made) with a link to a root-owned folder, through the bundled action: never written through",
    pick: { root: 'as root', sudo: 'through passwordless sudo', test: 'never restored through' },
  },
  {
    attack:
      "a node plants `core.fsmonitor` or a hook in a submodule's git folder (one the checkout had, or one a node made); a later node, granted `GH_TOKEN`, runs git there",
    root: 'the planting runs for the planter only; it is put back before the granted node, its check and interlock',
    sudo: SAME,
    before: 'the granted node ran the planted command with its token',
    test: 'test/reliability/hostile-git-modules.test.ts',
    what: "a node plants in a submodule's git folder, through the bundled action: never run by the granted node",
    pick: { root: 'as root', sudo: 'through passwordless sudo', test: 'never for the granted node' },
  },
  {
    attack:
      'a node process still running swaps what the git guard is putting back (a 4 MiB file, a folder) for a link to a root-owned file or folder',
    root: 'the guard writes and sets the mode only through the descriptor of what it made: the target keeps its bytes, mode and owner',
    sudo: 'the same, through a helper run as root that is given the folder as a descriptor and one name (`git-sudo.ts`)',
    before:
      "through sudo, the helper's `chmod` by path after `dd` followed the link: the root-only file became mode 755",
    test: 'test/reliability/hostile-git-sudo.test.ts',
    what: 'a node swaps in a link while the git guard puts a path back, as its process runs: the target untouched',
    pick: { root: 'as root', sudo: 'through passwordless sudo' },
  },
  {
    attack:
      'a node finds a hard link to a root-only file, or a file of another owner (uid 4242), in the workspace',
    root: 'not handed over: its owner, group, mode and bytes stay; the step names it',
    sudo: SAME,
    before: "the share gave the node user's group read and write on the root-only file",
    test: 'test/reliability/hostile-hardlinks.test.ts',
    what: 'a hard link to a root-only file, or a file of another owner, in the workspace, through the bundled action: not handed to the node user',
    pick: { root: 'as root', sudo: 'through passwordless sudo' },
  },
  {
    attack:
      'a node writes a `ProxyCommand` into `~/.ssh/config` of its password-database home (and an earlier job left one)',
    root: "it finds nothing there and cannot write (the home is empty and root's); the granted node's ssh reads no config; the home is removed at the step's end",
    sudo: SAME,
    before:
      "the first node found the leftover and planted; the granted node's `git ls-remote ssh://…` ran the ProxyCommand, which captured `NPM_TOKEN`; the file was still there after the step",
    test: 'test/reliability/hostile-home.test.ts',
    what: "a ProxyCommand planted in the node user's password-database home, through the bundled action: found by no node, the home removed after the step",
    pick: { root: 'as root', sudo: 'through sudo' },
  },
  {
    attack:
      'a node leaves a process in a session of its own that ignores TERM, INT and HUP; the step is cancelled',
    root: 'gone when the main step exits (INT: "ended <n> process(es) of node user …"); after a KILL, gone after the post step; the home removed by either',
    sudo: SAME,
    before:
      "it ran on after the runner's INT, TERM and KILL and after the post step, which marked the node interrupted and ended nothing",
    test: 'test/reliability/hostile-cancel.test.ts',
    what: 'a node process that ignores TERM in a session of its own, through the bundled action: ended by the cancel or the post step',
    pick: { root: 'as root', sudo: 'through sudo' },
  },
  {
    attack: "a node prints its granted token, a line of a granted key and the token's base64",
    root: 'the log the runner shows holds `***` for each (`::add-mask::` before any node runs)',
    sudo: SAME,
    before: 'the log held them in clear',
    test: 'test/reliability/hostile-mask.test.ts',
    what: "a node prints its granted secret, through the bundled action: masked in the step's log",
    pick: { root: 'as root', sudo: 'through passwordless sudo' },
  },
  {
    attack:
      'an agent granted `GH_TOKEN` (the real Claude Code CLI) puts it in its tool calls and its text, with links, an image and HTML around it',
    root: 'no edit of the live progress comment, no other request, no job summary and no log line interlock writes carries the token; rendered as GFM, no edit links to or shows an image from what the agent wrote',
    sudo: SAME,
    before:
      "the live comment posted the granted token in clear, three times (GitHub keeps each edit); with the step's secrets kept from the live comment's door again, both columns fail",
    test: 'test/agents/live-secret.test.ts',
    what: 'an agent puts its granted token, links and an image in its steps, through the bundled action and the real Claude Code: none in the live comment',
    pick: { root: 'as root', sudo: 'through passwordless sudo' },
  },
  {
    attack:
      "a node granted `GH_TOKEN` records an output holding it with links, an image, HTML, a mention and an issue reference; the next node's error line holds the same, and it escalates; two more commit with subjects holding the token (whole, and cut short where their `git` check quotes them) beside the same, and fail that check",
    root: 'no comment interlock posts or edits (progress, escalation report), no job summary, no request, no line interlock logs and no journal carries the token or its start; rendered as GFM, nothing links to or shows an image from the node, and no mention or reference of its renders',
    sudo: SAME,
    before:
      "with the old escape (only pipes and `@`) back in the door, the progress comment rendered links and an image from the node (both columns fail); the token is kept out by the journal too. The step log's line of the failed `git` check carried the subject's token whole, and the journal the first 18 characters of the one cut short (both columns failed)",
    test: 'test/reliability/hostile-comments.test.ts',
    what: 'node text with its granted token, links and an image, through the bundled action: no token, link or image in what interlock posts',
    pick: { root: 'as root', sudo: 'through passwordless sudo' },
  },
  {
    attack:
      'on a pull request whose run is kept in a check run (`store: check-run`), a node granted `GH_TOKEN` records an output holding it with links, an image, HTML, a mention and a reference, which its output check quotes as it fails; another commits with a subject holding the token and the same, which its `git` check quotes',
    root: "the check run's title and summary (the Checks tab), the journal it holds, every other request and every line interlock logs carry no token; rendered as GFM, the summary has no link to or image from the nodes, and no mention or reference of theirs renders; the same for the App's check run of the run kept in git, drawn when the App is told of its branch, and for its replies on the pull request (to `/interlock status`, which draws the nodes' words, and its refusal of a reader's `/approve-rerun`)",
    sudo: SAME,
    before:
      "with the old escape (only pipes and `@`) back in the door, the summary's last-evidence column rendered the nodes' links and images, in the action's check run, the App's and its status reply (both columns fail)",
    test: 'test/reliability/hostile-check-run.test.ts',
    what: "node text with its granted token, links and an image, in a pull request's check run, through the bundled action: no token, link or image",
    pick: { root: 'as root', sudo: 'through passwordless sudo' },
  },
  {
    attack:
      "node text (an output value, a check's error line, a commit subject, an agent's words) holds links, images, HTML, mentions, references, table break-outs, a granted secret",
    root: 'every text interlock publishes (progress comment, escalation report, job summary, check run, replies, the page), rendered by a GFM renderer: the same elements as plain words, no secret',
    sudo: NO_NODE_USER,
    before:
      'with the old escape (only pipes, newlines and `@`) the progress comment, job summary and check run rendered 18 links',
    test: 'test/render/door.test.ts',
    what: 'node text with links, images, HTML, mentions and secrets, in everything interlock publishes rendered as GFM: only text',
    pick: { any: '' },
  },
  {
    attack:
      "a node outside a session rewrites the transcript the session's next node resumes (the real Claude Code CLI)",
    root: 'not resumed: the next node of the session starts afresh, saying why; the forged words reach no model',
    sudo: SAME,
    before: 'with the hash check disabled, the forged transcript was resumed (both columns fail)',
    test: 'test/agents/isolated-session-bound.test.ts',
    what: "a node outside a session rewrites the session's transcript, through the bundled action: not resumed",
    pick: { root: 'as root', sudo: 'through passwordless sudo' },
  },
  {
    attack: "another person starts a login and gets a maintainer's browser to open its callback URL",
    root: 'refused (400, "not started in this browser"): the login\'s state is sealed in a cookie of the browser that began it; a replayed callback makes no second session',
    sudo: NO_NODE_USER,
    before:
      'the maintainer was logged in as the attacker (with the state comparison dropped, answered 502, not 400)',
    test: 'test/app/page.test.ts',
    what: 'a login callback opened in another browser (login CSRF): refused',
    pick: { any: 'a callback opened in another browser is refused' },
  },
  {
    attack:
      'anyone starts logins without end (`GET /interlock/login` needs no session), or sends a login cookie past its ten minutes, altered, sealed under another key, or a session cookie in its place',
    root: "nothing kept per login: 6,000 pending logins grow the App's heap by under 100 bytes each (about 30 measured) and the first of them still ends; each cookie is refused (400) and makes no session",
    sudo: NO_NODE_USER,
    before:
      'with the pending logins kept in a map again, 230 bytes each; with the expiry not compared, a cookie 10 min 1 s old ended its login (both tests fail)',
    test: 'test/app/pending-logins.test.ts',
    what: 'logins started without end, and login cookies expired or forged: nothing kept, each refused',
    pick: { any: 'pending logins are bounded' },
  },
  {
    attack:
      'a node with `network:` reaches a private IPv4 address through an IPv6 form that embeds it (`64:ff9b:1::/48`, `::ffff:0:0/96`, `2002::/16`, Teredo, IPv4-compatible)',
    root: 'refused as the embedded IPv4 address is (property tests over each form)',
    sudo: NO_NODE_USER,
    before: '15 of the property tests fail with the old classification',
    test: 'test/core/egress-address.test.ts',
    what: 'an IPv6 form that embeds a private IPv4 address: refused as that address',
    pick: { any: 'an IPv6 form that embeds an IPv4 address' },
  },
  {
    attack:
      'a page on another name (DNS rebinding to 127.0.0.1) or a guessed token prefix, against `interlock ui`',
    root: 'only requests to its own `127.0.0.1:<port>` are answered; the token is compared by `timingSafeEqual` on equal-length digests',
    sudo: NO_NODE_USER,
    before: 'no `Host` check, the token compared with `startsWith` (6 of 8 tests fail with the old `ui.ts`)',
    test: 'test/cli/ui-guard.test.ts',
    what: '`interlock ui` addressed by another name, or sent a token prefix: refused',
    pick: { any: 'interlock ui: only its own address, only its token' },
  },
];

/** Whether the test titled so (within `ancestorTitles`) is one of `r`'s in `column`. */
export function inColumn(
  r: OutlastingRow,
  column: 'root' | 'sudo' | 'any',
  t: { title: string; ancestorTitles: string[] },
): boolean {
  const piece = r.pick[column];
  if (piece === undefined) return false;
  return [...t.ancestorTitles, t.title].join(' ').includes(piece) && t.title.includes(r.pick.test ?? '');
}

/** A Markdown table of `header` and `rows` (biome pads it in the doc; the test compares cells). */
const table = (header: string[], rows: string[][]) =>
  [header, header.map(() => '---'), ...rows].map((r) => `| ${r.join(' | ')} |`).join('\n');

/**
 * The tables for docs/RELIABILITY.md: `files`, one row per attempt file and plant, as root and through sudo (as a
 * run came out: `out`); `outlasting`, the second round's rows.
 */
export function deputyTable(out: { root: string[]; sudo: string[] }): { files: string; outlasting: string } {
  const files = table(
    ['the node replaces', 'with', 'as root', 'through passwordless sudo'],
    DEPUTY_ROWS.map((r, i) => [
      `\`$${r.file.variable}\``,
      r.plant.what,
      out.root[i] ?? 'not run',
      out.sudo[i] ?? 'not run',
    ]),
  );
  const outlasting = table(
    ['the attack', 'as root', 'through passwordless sudo', 'before the fix', 'test'],
    OUTLASTING.map((r) => [r.attack, r.root, r.sudo, r.before, `\`${r.test}\``]),
  );
  return { files, outlasting };
}
