// A form of the maintainers' page (issue 37), called at the seam the comment and the button share: the same rules,
// bound to what the page showed, applied once, with an attributed comment and the workflow dispatched.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { handlePageAction, type PageAction } from '../../src/approvals/page-action.js';
import { createClient } from '../../src/github/client.js';
import { PEOPLE, startWorld, type World } from '../app/world.js';
import { handlerDeps } from '../support/handler-deps.js';

describe('a page action goes through the comment command path', () => {
  let world: World;
  beforeEach(async () => {
    world = await startWorld();
  });
  afterEach(() => world.close());

  const deps = () =>
    handlerDeps({
      octokit: createClient({ token: 'test', baseUrl: world.server.url, retries: 0, writeIntervalMs: 0 }),
      repo: { owner: 'acme', repo: 'widgets' },
      journalBranch: 'interlock-journal',
      webUrl: 'https://github.com',
    });
  const form = (over: Partial<PageAction> = {}): PageAction => ({
    login: PEOPLE.writer,
    runId: 'fix/issue-1',
    node: 'deploy',
    waits: 'held',
    attempt: 1,
    graphHash: world.graph.hash,
    action: 'approve-rerun',
    text: 'check <b>the</b> @mia lock first',
    source: 'https://interlock.example/interlock/act#bob-f1-approve-rerun',
    defaultBranch: 'main',
    ...over,
  });
  const events = (type: string) => world.journal().events.filter((e) => e.type === type);
  const comments = () => world.repo.commentsOn(1).map((c) => c.body);

  it('approves once with guidance, leaves an attributed comment and dispatches the workflow', async () => {
    world.seedRun();
    const r = await handlePageAction(deps(), form());
    expect(r).toMatchObject({ kind: 'done', what: 'released deploy attempt 1 (1 of 1)' });
    expect(events('RerunApproved')).toEqual([
      expect.objectContaining({ approved_by: PEOPLE.writer, guidance: 'check <b>the</b> @mia lock first' }),
    ]);
    const said = comments().at(-1)!;
    expect(said).toMatch(
      /^🖱️ approved a rerun of `deploy` in run `fix\/issue-1` from the interlock page by @bob\./,
    );
    expect(said).toContain('```text\ncheck <b>the</b> @mia lock first\n```');
    expect(world.repo.dispatches).toHaveLength(1);
    // The same form again (a double submit) is the same delivery: nothing more is written or said.
    const again = await handlePageAction(deps(), form());
    expect(again.kind).toBe('ignored');
    expect(events('RerunApproved')).toHaveLength(1);
    expect(world.repo.dispatches).toHaveLength(1);
  });

  it('refuses a page older than the journal: "this page is out of date"', async () => {
    world.seedRun();
    const r = await handlePageAction(deps(), form({ attempt: 2, source: 'https://interlock.example/x#f2' }));
    expect(r).toMatchObject({ kind: 'refused' });
    expect((r as { why: string }).why).toMatch(
      /^this page is out of date: "deploy" waits on attempt 1 now, not 2/,
    );
    const gate = await handlePageAction(
      deps(),
      form({ waits: 'gate', source: 'https://interlock.example/x#f3' }),
    );
    expect((gate as { why: string }).why).toMatch(
      /this page is out of date: "deploy" is held now, no longer awaiting approval/,
    );
    const graph = await handlePageAction(
      deps(),
      form({ graphHash: 'sha256:0', source: 'https://interlock.example/x#f4' }),
    );
    expect((graph as { why: string }).why).toMatch(
      /this page is out of date: the run goes on under another graph/,
    );
    expect(events('RerunApproved')).toEqual([]);
    expect(comments().filter((c) => c.includes('interlock page'))).toEqual([]);
  });

  it('refuses a person the comment command refuses (read permission), saying nothing on the issue', async () => {
    world.seedRun();
    const r = await handlePageAction(deps(), form({ login: PEOPLE.reader }));
    expect(r).toMatchObject({ kind: 'refused' });
    expect((r as { why: string }).why).toContain('@rita has read permission; this command needs write');
    expect(events('RerunApproved')).toEqual([]);
  });

  it('settles with what was checked, and fails a run with a reason', async () => {
    world.seedRun();
    const settled = await handlePageAction(
      deps(),
      form({ action: 'settle', text: 'deploy log shows v2 live' }),
    );
    expect(settled.kind).toBe('done');
    expect(events('NodeRecorded').at(-1)).toMatchObject({
      node: 'deploy',
      recorded_by: PEOPLE.writer,
      note: 'deploy log shows v2 live',
    });
    world.seedRun({ runId: 'fix/issue-2', subject: 'issue-2' });
    const failed = await handlePageAction(
      deps(),
      form({
        runId: 'fix/issue-2',
        action: 'fail-run',
        text: 'obsolete',
        source: 'https://interlock.example/x#f9',
      }),
    );
    expect(failed.kind).toBe('done');
    expect(world.journal('fix/issue-2').events.at(-1)).toMatchObject({
      type: 'RunFailed',
      by: PEOPLE.writer,
    });
    expect(world.repo.commentsOn(2).at(-1)?.body).toMatch(
      /^🖱️ failed the run `fix\/issue-2` from the interlock page by @bob\./,
    );
  });

  it('refuses a settlement without what was checked', async () => {
    world.seedRun();
    const r = await handlePageAction(deps(), form({ action: 'settle', text: '  ' }));
    expect(r).toEqual({ kind: 'refused', why: 'settle needs what you checked' });
  });
});
