import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CANNOT_SWITCH, canSwitchUser } from '../../src/os/node-user/node-user.js';

describe('npm run demo:cli', () => {
  it('shows every part of the protocol, the gate before publish included, and ends with the run completed and one publication', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'examples/demo/run-demo.ts'], {
      cwd: new URL('../..', import.meta.url).pathname,
      encoding: 'utf8',
      env: { ...process.env, FORCE_COLOR: '0' },
    });
    expect(out).toContain('"reproduce" attempt 1 recorded');
    expect(out).toContain('"implement" attempt 2 failed');
    expect(out).toContain('dispatched "implement" attempt 3 (retry[1]');
    expect(out).toContain('"implement" attempt 3 recorded');
    expect(out).toContain('recovered: "docs" attempt 1 was interrupted; replay: safe, it runs again');
    // The gate: the run stops before publish, alice approves with guidance, and publish gets it as data.
    expect(out).toContain('✋ "publish" awaits approval before it runs');
    expect(out).toContain('alice approved "publish" (it may run now)');
    expect(out).toContain(
      '$INTERLOCK_CONTEXT gave "publish" the guidance from alice: Publish to the staging channel first.',
    );
    expect(out).toContain('recovered: "publish" attempt 1 was interrupted; held until a person approves');
    expect(out).toContain('alice approved a rerun of "publish"');
    expect(out).toMatch(/run fix-bug \(fix-bug\): completed/);
    expect(out).toMatch(/published\.log: fix-bug\/publish\n/);
    // The agent's side: the envelope of implement's third attempt, and a session that the second node resumes.
    expect(out).toContain('│ When you finish, interlock will check:');
    expect(out).toContain('│ - `grep -q "add(2, 2) = 4" calc.txt` exits 0');
    expect(out).toContain('│ Attempt 2 failed.');
    expect(out).toContain(
      '"write" recorded session demo-session-write-1, having resumed demo-session-plan-1 (--resume)',
    );
  }, 180_000);
});

describe('npm run demo (the GitHub story, simulated locally)', () => {
  it('routes a label, survives two runner deaths, gates publish on a signed /approve with guidance, holds it, takes a signed rerun approval and completes', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'examples/demo/github-demo.ts'], {
      cwd: new URL('../..', import.meta.url).pathname,
      encoding: 'utf8',
      env: { ...process.env, FORCE_COLOR: '0' },
    });
    expect(out).toContain('GitHub is simulated by a local server');
    expect(out).toContain('dispatched "implement" attempt 3 (retry[1]');
    expect(out).toContain('recovered: "docs" attempt 1 was interrupted; replay: safe, it runs again');
    // The gate: the step ends awaiting approval and the issue shows what publish will do and how to approve it.
    expect(out).toContain('status=awaiting-approval');
    expect(out).toContain(
      '│ ✋ **interlock: `publish` waits for approval before it runs** (`approval: before`)',
    );
    expect(out).toContain('│ /approve publish\n');
    // 200 when the App handled it within INTERLOCK_ANSWER_MS, else 202 at once and the reply later (docs/DEPLOY.md).
    expect(out).toMatch(/\/approve publish\n.*│ Publish to the staging channel first;.*\n.*HTTP 20[02]\b/);
    expect(out).toContain('@alice approved `publish` in run `fix-bug/issue-42`: approvals 1 of 1 (@alice)');
    expect(out).toContain(
      '"publish" got in $INTERLOCK_CONTEXT the guidance from alice: "Publish to the staging channel first; the release notes are in CHANGELOG.md."',
    );
    expect(out).toMatch(
      /workflow run #3 \(workflow_dispatch\)[^\n]*\n(.*\n)*.*dispatched "publish" attempt 1/,
    );
    expect(out).toContain('recovered: "publish" attempt 1 was interrupted; held until a person approves');
    expect(out).toContain('status=held');
    expect(out).toContain('/approve-rerun publish');
    // 200, or 202 where the App was still working after 9 s (a loaded machine): then the demo waits for its reply.
    expect(out.match(/the app received the signed webhook: HTTP 20[02]/g)).toHaveLength(2);
    expect(out).toContain('approved a rerun of `publish`');
    expect(out).toContain('"publish" attempt 2 recorded');
    expect(out).toContain('published.log: 1 line(s): fix-bug/issue-42/publish');
    expect(out).toContain('ending with RunCompleted');
    // As root (or with passwordless sudo) node commands run as a user of their own: no isolation warning, and
    // the demo does not announce one.
    if (canSwitchUser()) {
      expect(out).not.toContain('isolation: auto:');
      expect(out).not.toContain('Steps that run a node warn');
    } else expect(out).toContain(`Steps that run a node warn "isolation: auto: ${CANNOT_SWITCH}`);
    // docs/approvals.md's excerpt of this output is this output: every line it shows is a line printed here.
    const page = readFileSync(new URL('../../docs/approvals.md', import.meta.url), 'utf8');
    const excerpt = /<!-- demo-output:[^\n]*-->\n```text\n([\s\S]*?)```/.exec(page)?.[1];
    const shown = (excerpt ?? '').split('\n').filter((l) => l && l !== '…');
    expect(shown.length).toBeGreaterThan(5);
    const printed = new Set(out.split('\n'));
    expect(shown.filter((l) => !printed.has(l))).toEqual([]);
    const took = Number(/finished in ([\d.]+) s/.exec(out)?.[1]);
    expect(took).toBeLessThan(60);
  }, 120_000);
});
