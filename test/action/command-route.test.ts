// A route started by a slash command in a comment (`command: /interlock fix`), run as a runner runs it: a
// comment is anyone's to write, so only the people who may approve (approvals.permission, approvals.approvers)
// start a run with it; anyone else's comment ends the step with status=refused, before anything is written.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { commentEvent, OWNER, PEOPLE, REPO, startWorld, type World } from '../app/world.js';
import { makeWorkspace, runStep } from '../support/action-process.js';

const CONFIG = `routes:
  - event: issue_comment
    command: /interlock fix
    graph: .github/interlock/fix.yml
approvals:
  permission: write
  approvers: [${PEOPLE.listed}]
`;
const GRAPH = `interlock: 1
name: started-by-comment
nodes:
  - id: work
    run: echo worked >> effects.log
`;

let world: World;
afterEach(async () => world?.close());

async function comment(spec: Parameters<typeof commentEvent>[1]) {
  world = await startWorld();
  const ws = makeWorkspace({ '.github/interlock.yml': CONFIG, '.github/interlock/fix.yml': GRAPH });
  const ev = commentEvent(world, spec);
  const mark = world.server.requests.mark();
  const r = await runStep({
    apiUrl: world.server.url,
    repository: `${OWNER}/${REPO}`,
    workspace: ws,
    eventName: 'issue_comment',
    payload: ev.payload,
    inputs: {},
    job: { runId: 9101 },
  });
  const writes = world.server.requests.count({ since: mark, method: 'PUT' });
  const effects = join(ws, 'effects.log');
  return { r, writes, worked: existsSync(effects) ? readFileSync(effects, 'utf8') : '' };
}

describe('a run started by a slash command', () => {
  it('a writer starts it: the node runs and the journal is written', async () => {
    const { r, writes, worked } = await comment({ body: '/interlock fix', login: PEOPLE.writer });
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.outputs.status).toBe('completed');
    expect(worked).toBe('worked\n');
    expect(writes).toBeGreaterThan(0);
  });

  it('someone listed in approvals.approvers starts it without write permission', async () => {
    const { r, worked } = await comment({ body: '/interlock fix', login: PEOPLE.listed });
    expect(r.outputs.status, r.stdout + r.stderr).toBe('completed');
    expect(worked).toBe('worked\n');
  });

  for (const [who, login] of [
    ['a reader', PEOPLE.reader],
    ['a stranger', PEOPLE.stranger],
    ['a triager', PEOPLE.triager],
  ] as const)
    it(`${who} cannot: status=refused, a reply on the issue says why, nothing runs, nothing is written`, async () => {
      const { r, writes, worked } = await comment({ body: '/interlock fix', login });
      expect(r.code, r.stdout + r.stderr).toBe(0);
      expect(r.outputs.status).toBe('refused');
      expect(r.stdout).toMatch(
        new RegExp(
          `::notice::interlock: not started: @${login} has \\w+ permission; starting a run from a comment needs write`,
        ),
      );
      expect(worked).toBe('');
      expect(writes).toBe(0);
      // The commenter is told on the issue, not only in a job log they may not see.
      const replies = world.repo.commentsOn(1).filter((c) => c.body.startsWith('<!-- interlock:reply -->'));
      expect(replies).toHaveLength(1);
      expect(replies[0]!.body).toContain(`@${login} interlock did not act on this comment: not started:`);
      expect(replies[0]!.body).toContain('starting a run from a comment needs write');
    });

  it('a bot cannot, and an edited comment cannot', async () => {
    const bot = await comment({ body: '/interlock fix', login: 'renovate[bot]' });
    expect(bot.r.outputs.status).toBe('refused');
    expect(bot.r.stdout).toContain('bots never give interlock commands');
    expect(bot.worked).toBe('');
    // No reply to a bot: that is how two bots answer each other for ever.
    expect(world.repo.commentsOn(1).filter((c) => c.body.startsWith('<!-- interlock:reply -->'))).toEqual([]);
    await world.close();
    const edited = await comment({ body: '/interlock fix', login: PEOPLE.writer, action: 'edited' });
    expect(edited.r.outputs.status).toBe('refused');
    expect(edited.r.stdout).toContain('only new comments are read');
    expect(edited.worked).toBe('');
  });
});
