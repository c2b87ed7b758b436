// One door for node text (issue 46): every text interlock publishes (the progress comment, live and final, the
// escalation report, the job summary, the check run's output, the attention and overdue comments, the replies,
// the page) is rendered here by a real GitHub-flavoured Markdown renderer (micromark + GFM) and read back with a
// real HTML parser (parse5). A run whose node text is hostile (links, images, HTML, mentions, references, table
// break-outs, a granted secret, a token of a known shape) must render to the same elements as the same run with
// plain words in its place: no element comes from node text, only text; and no secret is in the text.

import { describe, expect, it } from 'vitest';
import {
  failedReply,
  failedRunReply,
  refusedReply,
  statusReply,
} from '../../src/approvals/replies/replies.js';
import type { Failure } from '../../src/journal/events/fields.js';
import { decideResult } from '../../src/protocol/decide.js';
import { oneLine } from '../../src/protocol/engines/text.js';
import { runOf } from '../../src/protocol/run.js';
import { throughDoor, withoutSecrets } from '../../src/render/door.js';
import { attentionFor } from '../../src/render/gate-attention.js';
import { type LiveView, liveMarkdown, liveStepLine } from '../../src/render/live/live.js';
import { jobSummary, overdueComment, progressComment } from '../../src/render/markdown.js';
import { runPage } from '../../src/render/page/run-page.js';
import { type PageRun, waitingRows } from '../../src/render/page/waiting-model.js';
import { waitingPage } from '../../src/render/page/waiting-page.js';
import { statusMarkdown } from '../../src/render/status.js';
import { ganttText } from '../../src/render/timeline/mermaid.js';
import { timelineOf } from '../../src/render/timeline/timeline-of.js';
import { graph, graphText, Sim } from '../core/sim.js';
import { gitHubLinks, readHtml, renderedShape } from '../support/gfm.js';

/** The step's granted secret (no known shape), and a GitHub token of the known shape that nobody granted. */
const GRANTED = 'Zq9-granted-npm-secret-4471-kT';
const UNGRANTED = `ghp_${'aB3dE5fG7hJ9kL1mN2pQ4rS6tU8vW0xY2zA4'}`;
const SECRETS = [GRANTED];
const b64 = (s: string) => Buffer.from(s).toString('base64');

/** Node text that tries everything GitHub would render from a bot's comment. */
const HOSTILE = [
  `token ${GRANTED} (base64 ${b64(GRANTED)}) and ${UNGRANTED}`,
  '[All checks passed: approve the rerun here](https://evil.example/approve)',
  '![pixel](https://evil.example/p.png) <img src="https://evil.example/t.png">',
  '</code></summary></details></td></tr></table><a href="https://evil.example">click</a><!-- hidden -->',
  '<https://evil.example/auto> https://evil.example/raw www.evil.example mallory@evil.example',
  '@alice @acme/admins #4242 acme/widgets#4242 GH-4242 deadbeefcafe1234',
  '**bold** _em_ ~~gone~~ $x^2$ `code` :rocket:',
  '| cell | break |',
  '\n# heading\n- list\n> quote\n1. one\n---\n- [x] task\n',
  '[ref] [^1]\n\n[ref]: https://evil.example/ref\n[^1]: a footnote\n',
  '&lt;img src=x&gt; &#60;img&#62; \\[escaped\\](https://evil.example/esc)',
  '\n```\n</details>\n~~~\n',
].join(' ');
const PLAIN = 'plain words';

const g = graph(
  graphText(`  - id: build
    run: ./build.sh
  - id: test
    depends_on: [build]
    run: ./test.sh
    retry:
      - run: ./test.sh --again
`),
);

/** A run: build passes with `text` as its evidence, test fails twice with `text` and escalates, the timeline. */
function runWith(text: string): Sim {
  const sim = new Sim(g);
  const d = sim.dispatch('build');
  const r = decideResult(runOf(g, sim.journal, sim.state), {
    node: 'build',
    attempt: d.attempt,
    outcome: {
      failures: [],
      evidence: [{ check: 'command true', passed: true, observed: text }],
      outputs: { note: text },
      usage: { wall_ms: 10 },
    },
  });
  if (r.kind !== 'write') throw new Error(r.reason);
  sim.append(r.events);
  const failures: Failure[] = [{ check: 'exit', message: text, excerpt: text, log: text }];
  sim.dispatch('test');
  sim.fail('test', failures);
  sim.dispatch('test');
  sim.fail('test', failures);
  return sim;
}

const live = (text: string): LiveView => ({
  node: 'test',
  attempt: 1,
  elapsedMs: 5000,
  usage: { turns: 2, input_tokens: 10, output_tokens: 5 } as LiveView['usage'],
  steps: [
    { tool: 'Bash', arg: text },
    { tool: 'Said', arg: text },
  ],
  stepCount: 2,
  state: 'running',
});

/** The App's replies know no step's secrets: only the shapes of known tokens are theirs to remove. */
const REPLIES = ['refusal reply', 'failure reply', 'fail-run reply', 'status reply'];
/** Where interlock's own sentence quotes node text, its code spans stay code (`prose`): code is inert too. */
const PROSE = ['job summary', 'refusal reply', 'failure reply', 'status reply'];
const noCode = (tags: string[]) => tags.filter((t) => t !== 'code');

/** Every Markdown text interlock publishes about the run, with `text` as the node's text everywhere it can be. */
function published(text: string): Record<string, string> {
  const sim = runWith(text);
  const { state, journal } = sim;
  const timeline = timelineOf(journal);
  return {
    'progress comment': progressComment(g, state, { timeline, secrets: SECRETS }),
    'live progress comment': `${progressComment(g, state, { timeline, secrets: SECRETS })}\n\n${liveMarkdown(live(text), SECRETS)}`,
    'job summary': jobSummary(g, state, text, { timeline, secrets: SECRETS }),
    "check run's output": statusMarkdown(g, state, SECRETS),
    'attention comment (escalation report)': attentionFor(g, state, 'test', journal.run_id, {
      secrets: SECRETS,
    }),
    'overdue comment': overdueComment(journal.run_id, 'test', 2, text, SECRETS),
    'refusal reply': refusedReply('bob', text),
    'failure reply': failedReply('bob', text),
    'fail-run reply': failedRunReply({ login: 'bob', runId: journal.run_id, reason: text }),
    'status reply': statusReply([
      { runId: journal.run_id, graph: g, state },
      { runId: 'test/issue-2', problem: text },
    ]),
  };
}

const hostile = published(HOSTILE);
const plain = published(PLAIN);

describe('what interlock publishes, rendered as GitHub renders it', () => {
  for (const [name, markdown] of Object.entries(hostile)) {
    it(`${name}: node text adds no element, link, mention or secret`, () => {
      const bad = renderedShape(markdown);
      const good = renderedShape(plain[name]!);
      // The hostile text reached the rendering (as text), so the test tests something.
      expect(bad.text).toContain('evil.example');
      // No link, no image, no element or comment of the node's: the same elements as with plain words.
      expect(bad.elements.filter((e) => e.tag === 'a' || e.tag === 'img' || 'href' in e.attrs)).toEqual([]);
      if (PROSE.includes(name)) expect(noCode(bad.tags)).toEqual(noCode(good.tags));
      else expect(bad.tags).toEqual(good.tags);
      // Nothing GitHub itself would link outside code (a mention, a reference, a sha) that plain words lack.
      expect(gitHubLinks(bad.prose)).toEqual(gitHubLinks(good.prose));
      // No secret, granted or of a known shape, in any form (a zero-width space does not hide one).
      const seen = bad.text.replace(/\u200b/g, '') + markdown.replace(/\u200b/g, '');
      const secrets = REPLIES.includes(name) ? [UNGRANTED] : [GRANTED, b64(GRANTED), UNGRANTED];
      for (const s of secrets) expect(seen).not.toContain(s);
    });
  }

  it('a step cut short in the middle of a granted secret shows none of it', () => {
    // The engines cut a step at 120 characters before the door sees it (src/protocol/engines/steps.ts).
    const arg = oneLine(`${'x'.repeat(100)} ${GRANTED}`, 120);
    expect(arg).toContain(GRANTED.slice(0, 9));
    const md = liveMarkdown({ ...live(PLAIN), steps: [{ tool: 'Bash', arg }] }, SECRETS);
    expect(md).not.toContain(GRANTED.slice(0, 4));
    expect(md).toContain('\\[secret removed\\]…');
    expect(liveStepLine('test', { tool: 'Bash', arg }, SECRETS)).not.toContain(GRANTED.slice(0, 4));
  });
});

describe('the page (`interlock ui` and the App) takes node text through the door', () => {
  const asRun = (sim: Sim): PageRun => ({
    repo: 'acme/a',
    journal: sim.journal,
    graph: g,
    state: sim.state,
    secrets: SECRETS,
  });
  const frame = { title: 'Waiting', base: '/interlock', user: 'alice', csrf: 'tok' };
  const pages = (text: string) => {
    const run = asRun(runWith(text));
    const view = {
      frame,
      now: '2030-01-01T00:00:00Z',
      repos: ['acme/a'],
      rows: waitingRows([run]),
      may: () => ({ ok: true as const }),
      filter: { mine: false },
      formId: 'abc',
      webUrl: 'https://github.com',
    };
    return { run: runPage(run, view), waiting: waitingPage(view) };
  };

  it('the run page and the waiting page: the same elements as plain words, and no secret', () => {
    const bad = pages(HOSTILE);
    const good = pages(PLAIN);
    for (const k of ['run', 'waiting'] as const) {
      const b = readHtml(bad[k]);
      const p = readHtml(good[k]);
      expect(b.text).toContain('evil.example');
      expect(b.elements.map((e) => e.tag)).toEqual(p.elements.map((e) => e.tag));
      for (const s of [GRANTED, UNGRANTED]) expect(bad[k]).not.toContain(s);
    }
  });
});

describe('the door', () => {
  it('a line: every character that Markdown or GitHub would read is escaped or broken', () => {
    expect(throughDoor('[a](https://x.example) @bob #12 <b>', 'line')).toBe(
      '\\[a\\](https:\u200b//x.example) @\u200bbob \\#\u200b12 &lt;b&gt;',
    );
    expect(throughDoor('- item', 'line')).toBe('\\- item');
    expect(throughDoor('1) item', 'line')).toBe('1\\) item');
    expect(throughDoor('x'.repeat(50), 'line', { max: 10 })).toBe(`${'x'.repeat(9)}…`);
    expect(throughDoor('fix deadbeefcafe1234', 'line')).toBe('fix deadbe\u200befcafe\u200b1234');
  });

  it("prose: interlock's code spans stay code, the rest is a line; an unclosed backtick is text", () => {
    expect(throughDoor('post `/approve x` again, [a](b) @bob `open', 'prose')).toBe(
      'post `/approve x` again, \\[a\\](b) @\u200bbob \\`open',
    );
    expect(throughDoor('``a`b`` and `c`', 'prose')).toBe('``a`b`` and `c`');
  });

  it('a block: a fence the text cannot close; plain: the text without its secrets', () => {
    expect(throughDoor('```\nx\n```', 'block')).toBe('````text\n```\nx\n```\n````');
    expect(throughDoor(`a ${GRANTED} b ${UNGRANTED}`, 'plain', { secrets: SECRETS })).toBe(
      'a [secret removed] b [secret removed]',
    );
  });

  it("the timeline's gantt (a code block GitHub draws) carries no token either", () => {
    expect(ganttText(`overdue: ${UNGRANTED} seen`)).toBe('overdue [secret removed] seen');
  });

  it('known token shapes go even when nobody granted them', () => {
    for (const t of [
      UNGRANTED,
      `github_pat_${'A1'.repeat(20)}`,
      `npm_${'b2'.repeat(18)}`,
      `sk-ant-api03-${'c3'.repeat(20)}`,
      'AKIAABCDEFGHIJKLMNOP',
    ])
      expect(withoutSecrets(`x ${t} y`)).toBe('x [secret removed] y');
  });
});
