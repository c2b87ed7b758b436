// The example workflow for `mode: comment` (examples/workflows/interlock-comment.yml) filters comments with a
// cheap `if:` before a job starts: every command the handler reads must get through it, or a maintainer's
// comment is silently never seen (as `/approve <node>` was, when the filter knew only `/approve-rerun`).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { type Command, parseComment } from '../../src/approvals/commands/parse.js';
import { evaluateCondition } from '../../src/expressions/evaluate.js';

const FILE = 'examples/workflows/interlock-comment.yml';
const workflow = parse(readFileSync(new URL(`../../${FILE}`, import.meta.url), 'utf8')) as {
  jobs: Record<string, { if?: string; steps: Array<{ with?: Record<string, string> }> }>;
};

/** One comment per command kind; the compiler asks for a new one when a kind is added. */
const SAMPLES: Record<Command['kind'], string> = {
  approve: 'Looks right to me.\n/approve publish\nPublish to staging first.',
  'approve-rerun': '/approve-rerun deploy fix/issue-1',
  settle: '/settle deploy checked the release page',
  'fail-run': '/fail-run the plan is wrong',
  'rerun-from': '/rerun-from plan fix/issue-1\nSplit the work into smaller tasks.',
  status: '/interlock status',
};

describe(`${FILE}`, () => {
  const [name, job] = Object.entries(workflow.jobs).find(([, j]) =>
    j.steps.some((s) => s.with?.mode === 'comment'),
  )!;

  for (const [kind, body] of Object.entries(SAMPLES)) {
    it(`starts its job (${name}) for a comment with the ${kind} command`, () => {
      const parsed = parseComment(body);
      expect(parsed.kind === 'command' && parsed.command.kind).toBe(kind);
      expect(evaluateCondition(job.if ?? 'true', { github: { event: { comment: { body } } } })).toBe(true);
    });
  }

  it('skips a comment with no command', () => {
    const body = 'Thanks, I will look at it tomorrow.';
    expect(evaluateCondition(job.if ?? 'true', { github: { event: { comment: { body } } } })).toBe(false);
  });
});

describe('the pages that show a mode: comment workflow', () => {
  it("show the example's filter wherever they show one (a copied snippet must not drop a command)", () => {
    const pages = ['README.md', 'docs/approvals.md'].map((p) =>
      readFileSync(new URL(`../../${p}`, import.meta.url), 'utf8'),
    );
    const blocks = pages
      .flatMap((page) => [...page.matchAll(/```yaml\n([\s\S]*?)```/g)])
      .map((m) => m[1]!)
      .filter((b) => /mode: comment/.test(b) && /^\s+if: /m.test(b));
    expect(blocks.length).toBeGreaterThan(0);
    const [job] = Object.values(workflow.jobs).filter((j) => j.steps.some((s) => s.with?.mode === 'comment'));
    for (const block of blocks) expect(/^\s+if: (.*)$/m.exec(block)?.[1]).toBe(job!.if);
  });
});
