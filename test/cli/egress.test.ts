// The egress allowlist through the bundled CLI (issue 27), as the Action does it: as root, and as a user with
// passwordless sudo (test/support/sudo-runner.ts). A node with `network: { allow: [127.0.0.2] }` reaches the server
// on 127.0.0.2 and not the one on 127.0.0.3; the journal records the attempt's connections and `interlock status`
// shows them. Needs `npm run build`.
import { spawn } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { CLI, cleanupSandboxes, eventsOf, requireBundle, sandbox } from '../crash/harness.js';
import { type EgressHost, startEgressHost } from '../support/egress-hosts.js';
import { giveTo, noSudoRunner, sudoRunner } from '../support/sudo-runner.js';

let granted: EgressHost;
let other: EgressHost;
beforeAll(async () => {
  requireBundle();
  granted = await startEgressHost('127.0.0.2');
  other = await startEgressHost('127.0.0.3');
});
afterAll(async () => {
  await granted?.close();
  await other?.close();
});
afterEach(cleanupSandboxes);

const graph = () => `interlock: 1
name: egress
nodes:
  - id: fetch
    network: { allow: [127.0.0.2] }
    outputs: [granted, other]
    run: |
      echo "granted=$(curl -sS ${granted.url}/cli)" >> "$INTERLOCK_OUTPUT"
      echo "other=$(curl -sS -o /dev/null -w '%{http_code}' ${other.url}/cli)" >> "$INTERLOCK_OUTPUT"
`;

/** `node dist/cli.js` as another user (the sudo runner's), to its end. */
function cliAs(user: { uid: number; gid: number; home: string }, cwd: string, args: string[]) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd,
      uid: user.uid,
      gid: user.gid,
      env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: user.home, TMPDIR: `${cwd}/.tmp` },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString()));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

const setups = [
  { name: 'as root', sudo: false, skip: process.getuid?.() === 0 ? undefined : 'not root' },
  { name: 'through passwordless sudo', sudo: true, skip: noSudoRunner() },
];

describe.each(setups)('a node with network: through the CLI, $name', ({ sudo, skip }) => {
  it.skipIf(!!skip)('reaches only the allowed host, journals it, and status shows it', async (ctx) => {
    const sb = sandbox(ctx, 'interlock-egress-cli-');
    sb.write('graph.yml', graph());
    mkdirSync(sb.path('.tmp'), { recursive: true });
    const user = sudo ? sudoRunner() : undefined;
    if (user) giveTo(sb.dir, user);
    const cli = (args: string[]) => (user ? cliAs(user, sb.dir, args) : sb.cli(args));
    const r = await cli(['run', 'graph.yml', '--all', '--run-id', 'egress']);
    expect(r.code, r.stderr).toBe(0);
    const recorded = eventsOf(sb.journal('egress'), 'NodeRecorded', 'fetch')[0]!;
    expect(recorded.outputs).toEqual({ granted: 'hello from 127.0.0.2', other: '403' });
    expect(recorded.connections).toEqual([
      { host: '127.0.0.2', port: granted.port, allowed: true, count: 1 },
      { host: '127.0.0.3', port: other.port, allowed: false, count: 1 },
    ]);
    expect(other.requests.filter((q) => q.path === '/cli')).toEqual([]);
    expect(r.stderr).toContain(
      `"fetch" attempt 1 connected through the egress proxy: 127.0.0.2:${granted.port} allowed ×1`,
    );
    const status = await cli(['status', '--run-id', 'egress']);
    expect(status.stdout).toContain(
      `network (what each attempt asked the egress proxy for):\n  fetch attempt 1: 127.0.0.2:${granted.port} allowed ×1, 127.0.0.3:${other.port} refused ×1`,
    );
  });
});
