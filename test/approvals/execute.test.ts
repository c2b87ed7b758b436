/** executeCommand, called directly: from an authorized command to the journal, the dispatch and the reply. */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { executeCommand } from '../../src/approvals/execute.js';
import type { CommandRequest } from '../../src/approvals/request.js';
import { NEEDS_HUMAN_LABEL } from '../../src/render/words.js';
import {
  commandDeps,
  GRAPH_PATH,
  GRAPH_TEXT,
  observe,
  PEOPLE,
  startWorld,
  type World,
} from '../app/world.js';
import { shownText } from '../support/gfm.js';

const SOURCE = 'https://github.com/acme/widgets/issues/1#issuecomment-700';

describe('executeCommand against the local GitHub', () => {
  let world: World;
  beforeEach(async () => {
    world = await startWorld();
  });
  afterEach(() => world.close());

  const deps = () => commandDeps(world);
  const request = (login: string, body = 'deploy'): CommandRequest => ({
    parsed: { kind: 'command', command: { kind: 'approve-rerun', node: body }, line: 1 },
    login,
    source: SOURCE,
    subject: { kind: 'issue', number: 1 },
    labels: [NEEDS_HUMAN_LABEL],
    defaultBranch: 'main',
  });

  it('releases a held node: RerunApproved in the journal, the workflow dispatched, the label removed', async () => {
    await world.seedRun();
    expect(world.repo.issues.get(1)?.labels).toContain(NEEDS_HUMAN_LABEL);
    const r = await executeCommand(deps(), request(PEOPLE.writer));
    expect(r.outcome).toMatchObject({ kind: 'done', what: 'released deploy attempt 1 (1 of 1)' });
    expect(r.reply).toContain('approved a rerun of `deploy` in run `fix/issue-1`');
    const seen = observe(world);
    expect(seen.approvals).toEqual([expect.objectContaining({ approved_by: PEOPLE.writer, source: SOURCE })]);
    expect(seen.dispatches).toHaveLength(1);
    expect(world.repo.issues.get(1)?.labels).not.toContain(NEEDS_HUMAN_LABEL);
  });

  it('refuses a person without permission before reading any run, and writes nothing', async () => {
    await world.seedRun();
    const mark = world.server.requests.mark();
    const r = await executeCommand(deps(), request(PEOPLE.reader));
    expect(r.outcome.kind).toBe('refused');
    // The reason passes the door (a zero-width space after @): read as GitHub shows it.
    expect(shownText(r.reply)).toContain('@rita has read permission; this command needs write');
    expect(
      world.server.requests.filter({ since: mark, kind: 'GET /repos/{owner}/{repo}/git/trees/{tree_sha}' }),
    ).toEqual([]);
    expect(observe(world).approvals).toEqual([]);
  });

  it('refuses an approval once the graph at the default branch changed since the run started', async () => {
    await world.seedRun();
    world.repo.commitFiles('main', { [GRAPH_PATH]: GRAPH_TEXT.replace('echo plan', 'echo plan again') }, {});
    const r = await executeCommand(deps(), request(PEOPLE.writer));
    expect(r.outcome).toMatchObject({ kind: 'refused' });
    expect(shownText(r.reply)).toContain('changed since run fix/issue-1 started');
    expect(observe(world).approvals).toEqual([]);
  });
});
