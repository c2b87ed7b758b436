import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

describe('npm run demo', () => {
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
