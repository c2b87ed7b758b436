import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('npm run demo:cli', () => {
  it('shows every part of the protocol and ends with the run completed and one publication', () => {
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
    expect(out).toContain('recovered: "publish" attempt 1 was interrupted; held until a person approves');
    expect(out).toContain('alice approved a rerun of "publish"');
    expect(out).toMatch(/run fix-bug \(fix-bug\): completed/);
    expect(out).toMatch(/published\.log: fix-bug\/publish\n/);
  }, 60_000);
});

describe('npm run demo (the GitHub story, simulated locally)', () => {
  it('routes a label, survives two runner deaths, holds publish, takes a signed approval and completes', () => {
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'examples/demo/github-demo.ts'], {
      cwd: new URL('../..', import.meta.url).pathname,
      encoding: 'utf8',
      env: { ...process.env, FORCE_COLOR: '0' },
    });
    expect(out).toContain('GitHub is simulated by a local server');
    expect(out).toContain('dispatched "implement" attempt 3 (retry[1]');
    expect(out).toContain('recovered: "docs" attempt 1 was interrupted; replay: safe, it runs again');
    expect(out).toContain('recovered: "publish" attempt 1 was interrupted; held until a person approves');
    expect(out).toContain('status=held');
    expect(out).toContain('/approve-rerun publish');
    expect(out).toContain('the app received the signed webhook: HTTP 200');
    expect(out).toContain('approved a rerun of `publish`');
    expect(out).toContain('"publish" attempt 2 recorded');
    expect(out).toContain('published.log: 1 line(s): fix-bug/issue-42/publish');
    expect(out).toContain('ending with RunCompleted');
    const took = Number(/finished in ([\d.]+) s/.exec(out)?.[1]);
    expect(took).toBeLessThan(60);
  }, 120_000);
});
