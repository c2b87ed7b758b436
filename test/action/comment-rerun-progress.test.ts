// A person's command whose `mode: comment` job died after its journal write, and which GitHub then re-runs on the
// same event (issue 45, the seam the model-based test found with seed 500 on the run branch): the journal already
// holds the command, so the re-run writes it no second time, and brings the progress comment up to the journal.
// Before, the re-run took the command as a redelivery and stopped there: the progress comment still showed the node
// escalated after it was settled. The settlement's dispatch died with the first attempt, so the re-run makes it,
// once, as for an approval (issue 50: its claim, `WorkflowDispatchRetried`, is all it writes). Through the bundled
// action (`node dist/index.js`) against the local GitHub.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fold } from '../../src/journal/fold.js';
import { parseJournal } from '../../src/journal/parse.js';
import {
  CONFIG,
  commentEvent,
  DEFAULT_APPROVALS,
  GRAPH_PATH,
  GRAPH_TEXT,
  observe,
  PEOPLE,
  startWorld,
  type World,
} from '../app/world.js';
import { requireBundle } from '../crash/harness.js';
import { makeWorkspace, runStep } from '../support/action-process.js';
import { FULL, issueStep } from './world.js';

const RUN = 'fix/issue-2';
const RUN_BRANCH = `interlock-journal-runs/${RUN}`;
const STALE_MS = 5000;
const FILES = { [GRAPH_PATH]: GRAPH_TEXT, '.github/interlock.yml': CONFIG(DEFAULT_APPROVALS) };

let world: World;
beforeAll(requireBundle);
afterAll(() => world?.close());

const journalText = () => world.repo.readText(`runs/${RUN}.json`, RUN_BRANCH);
const progress = () =>
  world.repo.commentsOn(2).find((c) => c.body.startsWith(`<!-- interlock:progress ${RUN}`))?.body ?? '';
/** The progress comment's row for a node: `| deploy | escalated | …`. */
const row = (node: string) => progress().match(new RegExp(`^\\| ${node} \\|[^\\n]*`, 'm'))?.[0] ?? '';

describe("a comment command's job killed after its write and re-run on the same event", () => {
  // `stale`: every read by branch name of the re-run is answered from 5 s before (GitHub's stale reads, modelled by
  // the local GitHub; the step is told so by INTERLOCK_STALE_READ_MS), from before the node escalated: the re-run
  // must not answer "nothing to settle" from that, but look again once its reads hold what came before it began.
  it.each([
    ['its reads exact', false],
    ['its reads from before the first attempt wrote', true],
  ])(
    'writes the command no second time, dispatches the lost dispatch once and refreshes the progress comment from the journal (%s)',
    async (_, stale) => {
      await world?.close();
      world = await startWorld({ likeGitHub: { staleProbability: 0, staleMs: STALE_MS } });
      const step = await runStep(
        issueStep(world.server, makeWorkspace(FILES), 2, 'fix', { inputs: { node: 'all' } }),
      );
      expect(step.outputs, step.stdout + step.stderr).toMatchObject({ status: 'escalated' });
      expect(row('deploy')).toMatch(/escalated/);

      const ev = commentEvent(world, {
        body: '/settle deploy deployed by hand',
        login: PEOPLE.writer,
        issue: 2,
        labels: ['fix'],
      });
      const comment = (env: Record<string, string>, attempt: number) =>
        runStep({
          apiUrl: world.server.url,
          repository: FULL,
          workspace: makeWorkspace({}),
          eventName: 'issue_comment',
          payload: ev.payload,
          inputs: { mode: 'comment' },
          job: { runId: 9101, attempt },
          env: { INTERLOCK_STALE_READ_MS: String(STALE_MS), ...env },
        });
      const killed = await comment({ INTERLOCK_FAILPOINTS: 'after-person-command-write' }, 1);
      expect(killed.signal, killed.stdout + killed.stderr).toBe('SIGKILL');
      const written = journalText();
      const settled = fold(parseJournal(written!, RUN), world.graph).checkpoint;
      expect(settled.escalated_nodes).toEqual([]);
      // The job died before it told anyone: the progress comment still shows deploy escalated.
      expect(row('deploy')).toMatch(/escalated/);

      // GitHub's "Re-run failed jobs": the same event, the same workflow run, its second attempt. It may read the
      // journal as it stood before the first attempt's write (the local GitHub answers a quarter of reads by branch
      // name from 2 s before): a refusal then is looked at again once the reads hold what came before it began.
      const model = world.server.model;
      if (stale) (model.options as { staleProbability: number }).staleProbability = 1;
      const staleBefore = model.stats.staleAnswers;
      // Whoever wrote the settlement had 1 s to dispatch (the shortest lease); past it the re-run does.
      const again = await comment({ INTERLOCK_DISPATCH_LEASE_MS: '1000' }, 2);
      if (stale) expect(model.stats.staleAnswers).toBeGreaterThan(staleBefore);
      expect(again.outputs.status, again.stdout).toBe('completed');
      expect(again.code, again.stdout + again.stderr).toBe(0);
      const before = parseJournal(written!, RUN).events;
      const after = parseJournal(journalText()!, RUN).events;
      expect(after.slice(0, before.length)).toEqual(before);
      expect(after.slice(before.length)).toEqual([
        expect.objectContaining({ type: 'WorkflowDispatchRetried', source: ev.payload.comment.html_url }),
      ]);
      expect(observe(world, undefined, RUN).dispatches).toEqual([
        expect.objectContaining({ inputs: { 'run-id': RUN } }),
      ]);
      expect(row('deploy')).not.toMatch(/escalated/);
      expect(row('deploy')).toMatch(/^\| deploy \| completed \|.*person: bob: deployed by hand/);
      // A redelivery is no refusal: nobody is told "there is nothing to settle".
      expect(world.repo.commentsOn(2).filter((c) => /nothing to settle/.test(c.body))).toEqual([]);
    },
    90_000,
  );
});
