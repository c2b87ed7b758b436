// One statement of an approval's terms for every face (issue 47): the required count and the self-approval rule
// a node's `approvals:` sets come from `commandTerms` (src/protocol/policy.ts), for a comment to the App and for
// the CLI alike. The same graph and the same journal, given to both: the run's starter is refused by both in the
// same words and nothing is written; another person's approval is recorded by both with the same count.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Io } from '../../src/cli/io.js';
import { main } from '../../src/cli/main.js';
import type { Journal } from '../../src/journal/events/events.js';
import { shownText } from '../support/gfm.js';
import { GIT_LAYOUTS, type GitLayout } from '../support/seed-journal.js';
import { seedGatedFile, seedGatedRun } from './gated-run.js';
import { getPage, logIn, type PageWorld, startPageWorld } from './page-world.js';
import { commentEvent, GRAPH_PATH, observe, PEOPLE, receive, startWorld, type World } from './world.js';

const GRAPH = `interlock: 1
name: fix
nodes:
  - id: plan
    run: echo plan
  - id: deploy
    run: ./deploy.sh
    depends_on: [plan]
    approval: before
    approvals:
      required: 2
      prevent_self_approval: true
`;
const JOURNAL_PATH = 'runs/fix/issue-1.json';

let world: World | undefined;
let page: PageWorld | undefined;
let dir: string | undefined;
afterEach(async () => {
  await world?.close();
  world = undefined;
  await page?.close();
  page = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** The App: the graph on main, the run in `layout` (written by the git store); a comment, and what it left. */
async function appFace(layout: GitLayout) {
  world = await startWorld({ layout });
  const w = world;
  await seedGatedRun(w, GRAPH);
  return {
    journal: () => w.journal(),
    approve: async (login: string) => {
      const ev = commentEvent(w, { body: '/approve deploy', login });
      await receive(w, ev);
      return shownText(observe(w, ev.payload.comment.id).replies.at(-1));
    },
  };
}

/**
 * The CLI: the same graph and run in a working directory (the journal written by the file store);
 * `interlock approve deploy --by <login>`.
 */
async function cliFace() {
  const root = mkdtempSync(join(tmpdir(), 'interlock-terms-'));
  dir = root;
  const file = join(root, '.interlock', JOURNAL_PATH);
  mkdirSync(dirname(join(root, GRAPH_PATH)), { recursive: true });
  writeFileSync(join(root, GRAPH_PATH), GRAPH);
  await seedGatedFile(file, GRAPH);
  return {
    journal: (): Journal => JSON.parse(readFileSync(file, 'utf8')),
    text: () => readFileSync(file, 'utf8'),
    approve: async (login: string) => {
      let said = '';
      const say = (t: string) => {
        said += t;
      };
      const io: Io = { out: say, err: say, cwd: root, env: {} };
      const code = await main(['approve', 'deploy', '--by', login, '--journal', file], io);
      return { code, said };
    },
  };
}

const approvals = (j: Journal) => j.events.filter((e) => e.type === 'NodeApproved');

describe.each(GIT_LAYOUTS)(
  "an approval's terms are the same on every face (the App's runs on the %s)",
  (layout) => {
    it('the run starter is refused by the App and the CLI in the same words, and neither writes', async () => {
      const app = await appFace(layout);
      const cli = await cliFace();
      const before = cli.text();
      const byComment = await app.approve(PEOPLE.admin);
      const byCli = await cli.approve(PEOPLE.admin);
      const words = `@${PEOPLE.admin} started this run and cannot approve it (prevent_self_approval)`;
      expect(byComment).toContain(words);
      expect(byCli.code).toBe(2);
      expect(byCli.said).toContain(words);
      expect(approvals(app.journal())).toEqual([]);
      expect(cli.text()).toBe(before);
    });

    it("the maintainers' page tells the starter in the same words that they cannot approve", async () => {
      page = await startPageWorld({}, 'quiet', { layout, widgetsRun: false });
      await seedGatedRun(page.world, GRAPH);
      const { html } = await getPage(page, await logIn(page, PEOPLE.admin));
      expect(html).toContain(
        `@${PEOPLE.admin} started this run and cannot approve it (prevent_self_approval)`,
      );
    });

    it('another person approves on both faces with the count the node sets (2), and the node still waits', async () => {
      const app = await appFace(layout);
      const cli = await cliFace();
      await app.approve(PEOPLE.writer);
      const byCli = await cli.approve(PEOPLE.writer);
      expect(byCli.code, byCli.said).toBe(0);
      expect(byCli.said).toContain('it waits for more approvals');
      const fromApp = approvals(app.journal());
      const fromCli = approvals(cli.journal());
      expect(fromApp).toEqual([
        expect.objectContaining({ node: 'deploy', approved_by: PEOPLE.writer, required: 2 }),
      ]);
      expect(fromCli).toEqual([
        expect.objectContaining({ node: 'deploy', approved_by: PEOPLE.writer, required: 2 }),
      ]);
    });
  },
);
