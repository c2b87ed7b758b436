// What interlock posts about a hostile node, through the bundled action (issue 46): a node granted GH_TOKEN
// records an output that holds the token, links, an image, HTML, a mention and an issue reference; the next node
// fails with the same in its error line and escalates; two more nodes, granted it too, each commit with a subject
// holding it (whole, and cut short by the check that quotes it) beside a link, an image, HTML, a mention and a
// reference, and fail their `git` check, which quotes the subject. Every comment interlock posts or edits (the progress
// comment, the escalation report), the job summary and every other request to the local GitHub hold no token,
// and each text, rendered as GitHub renders Markdown (test/support/gfm.ts), has no element that comes from the
// node's words: no link to or image from them, no mention or reference GitHub would link. As root and through
// passwordless sudo (the runner's user, as on GitHub's hosted runners). Needs `npm run build`.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FULL, issueStep, journalText, OWNER, REPO, routeLabel } from '../action/world.js';
import { requireBundle } from '../crash/harness.js';
import { runStep, type StepResult } from '../support/action-process.js';
import { gitHubLinks, renderedShape } from '../support/gfm.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { noSudoRunner } from '../support/sudo-runner.js';
import { HOSTILE_TEXT, hostileCheckout } from './hostile-checkout.js';

/** The granted token: no known token shape, so only the step's secrets can remove it. */
const TOKEN = 'Qx7-granted-gh-token-not-a-known-shape-58';
const HOSTILE = HOSTILE_TEXT;
const GRAPH = '.github/interlock/comments.yml';
/** Commit subjects: the token whole within the 100 characters a `git` check quotes, and cut short by them. */
const SUBJECT_WHOLE = '![i](https://evil.example/s.png) @alice #4242';
const SUBJECT_CUT = '[All checks passed](https://evil.example/c) <img src=x> @alice #4242';
/** A start of the token long enough to be a leak (a check quotes a subject cut short in the middle of it). */
const TOKEN_START = TOKEN.slice(0, 12);

const graph = `interlock: 1
name: comments
nodes:
  - id: build
    outputs: [note]
    run: printf 'note=%s %s\\n' "$GH_TOKEN" "$(cat hostile.txt)" >> "$INTERLOCK_OUTPUT"
  - id: test
    depends_on: [build]
    run: |
      echo "error: $GH_TOKEN $(cat hostile.txt)" >&2
      exit 1
  - id: subject
    run: git -c safe.directory='*' commit -q --allow-empty -m "$GH_TOKEN $(cat subject-whole.txt)"
    validates:
      - git: { min_commits: 2 }
  - id: subject-cut
    run: git -c safe.directory='*' commit -q --allow-empty -m "$(cat subject-cut.txt) $GH_TOKEN"
    validates:
      - git: { min_commits: 2 }
`;

const setups = [
  { name: 'as root', sudo: false, issue: 570, skip: process.getuid?.() === 0 ? undefined : 'not root' },
  { name: 'through passwordless sudo', sudo: true, issue: 571, skip: noSudoRunner() },
];

describe.each(setups)('node text in what interlock posts, $name', (setup) => {
  let server: GitHubServer;
  let step: StepResult;
  let sent: ReturnType<GitHubServer['requests']['filter']>;
  /** Every Markdown text interlock published: each comment it posted or edited, and the job summary. */
  let texts: string[];
  beforeAll(async () => {
    if (setup.skip) return;
    requireBundle();
    server = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
    server.state.repo(FULL).addIssue({ number: setup.issue, title: 'comments', labels: ['agent:comments'] });
    // A checkout: the nodes commit to it.
    const { ws, runnerTemp, as } = hostileCheckout(
      {
        '.github/interlock.yml': routeLabel('agent:comments', GRAPH),
        [GRAPH]: graph,
        'hostile.txt': HOSTILE,
        'subject-whole.txt': SUBJECT_WHOLE,
        'subject-cut.txt': SUBJECT_CUT,
      },
      { branch: 'main', sudo: setup.sudo },
    );
    const mark = server.requests.mark();
    step = await runStep(
      issueStep(server, ws, setup.issue, 'agent:comments', {
        inputs: { node: 'all', 'node-credentials': 'GH_TOKEN=build,test,subject,subject-cut' },
        env: { GH_TOKEN: TOKEN, RUNNER_TEMP: runnerTemp },
        ...as,
      }),
    );
    sent = server.requests.filter({ since: mark });
    const comments = sent
      .filter((q) => /\/issues\/(\d+\/)?comments/.test(q.path) && ['PATCH', 'POST'].includes(q.method))
      .map((q) => (q.body as { body?: string }).body ?? '');
    texts = [...comments, step.summary];
  }, 120_000);
  afterAll(() => server?.close());

  it.skipIf(setup.skip)(
    "the node's words reached the comments and the summary, the test node escalated",
    () => {
      expect(step.outputs.status, step.log.slice(-3000)).toBe('escalated');
      expect(texts.length).toBeGreaterThan(1);
      expect(texts.filter((t) => t.includes('evil.example')).length, texts.join('\n---\n')).toBeGreaterThan(
        1,
      );
      expect(step.summary).toContain('evil.example');
      // Each commit subject reached what interlock posts, through its git check's failure.
      expect(texts.join('\n')).toContain('evil.example/s.png');
      expect(texts.join('\n')).toContain('evil.example/c');
    },
  );

  it.skipIf(setup.skip)(
    'no request to GitHub, no job summary and no line interlock logs carries the token',
    () => {
      // The journal's requests carry it base64-encoded: read it as written.
      const journal = journalText(server, `comments/issue-${setup.issue}`) ?? '';
      expect(journal).toContain('evil.example/c');
      expect(journal).not.toContain(TOKEN_START);
      for (const q of sent) expect(JSON.stringify(q.body ?? '')).not.toContain(TOKEN_START);
      expect(step.summary).not.toContain(TOKEN_START);
      for (const l of step.stdout.split('\n').filter((x) => x.startsWith('interlock: ')))
        expect(l).not.toContain(TOKEN_START);
    },
  );

  it.skipIf(setup.skip)(
    'rendered as GitHub renders it: no link to or image from the node, no mention or reference',
    () => {
      for (const t of texts) {
        const { elements, prose } = renderedShape(t);
        const fromNode = elements.filter(
          (e) => e.tag === 'img' || Object.values(e.attrs).some((v) => v.includes('evil.example')),
        );
        expect(fromNode, t).toEqual([]);
        expect(
          gitHubLinks(prose).filter((l) => l === '@alice' || l === '#4242'),
          t,
        ).toEqual([]);
      }
    },
  );
});
