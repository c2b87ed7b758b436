// A proxy that cannot start fails the script before it runs, saying so (issue 27): it never leaves the script
// unrestricted. Here the temp folder the proxy's sockets go in is a file, so its folder cannot be made.
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runScript } from '../../src/os/exec.js';

const before = process.env.TMPDIR;
afterAll(() => {
  if (before === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = before;
});

describe('an egress proxy that cannot start', () => {
  it('fails the script with a clear message, and the script never runs', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'interlock-proxy-fail-'));
    // Short enough that the proxy does not fall back to /tmp for a socket path that would be too long.
    const notAFolder = `/tmp/ipf-${process.pid}`;
    writeFileSync(notAFolder, '');
    process.env.TMPDIR = notAFolder;
    const marker = join(dir, 'ran');
    await expect(
      runScript({
        script: `touch ${marker}`,
        grants: new Map(),
        env: { PATH: process.env.PATH },
        cwd: dir,
        timeoutMs: 10_000,
        network: {
          passPorts: [],
          rules: {
            decide: (h) => ({ host: h, allowed: false }),
            refusal: () => 'no\n',
            pick: () => ({ refusal: 'no\n' }),
            record: () => {},
          },
        },
      }),
    ).rejects.toThrow(/^interlock's egress proxy could not start: ENOTDIR: not a directory, mkdtemp/);
    expect(existsSync(marker)).toBe(false);
    rmSync(notAFolder, { force: true });
  });
});
