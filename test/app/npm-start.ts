// `npm start` as a child process, as a host runs it: the test helper start.test.ts and deploy.test.ts share.
import { type ChildProcess, spawn } from 'node:child_process';

/** What the process printed until it printed `ready` (then `match` is set) or exited (then `code` is). */
export interface Started {
  match?: RegExpExecArray;
  code?: number | null;
  out: string;
}

let running: ChildProcess | undefined;

/** Runs `npm start` in `dir` with only this environment (plus PATH and HOME); one at a time, see stopNpmStart. */
export function npmStart(dir: string, env: Record<string, string>, ready: RegExp): Promise<Started> {
  const proc = spawn('npm', ['start', '--silent'], {
    cwd: dir,
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  });
  running = proc;
  let out = '';
  return new Promise((resolve) => {
    const seen = (d: Buffer) => {
      out += d.toString();
      const match = ready.exec(out);
      if (match) resolve({ match, out });
    };
    proc.stdout.on('data', seen);
    proc.stderr.on('data', seen);
    proc.on('exit', (code) => resolve({ code, out }));
  });
}

/** Stops the last `npm start`: npm, its shell and node, the whole process group. */
export function stopNpmStart(): void {
  if (running?.pid && running.exitCode === null) process.kill(-running.pid, 'SIGTERM');
  running = undefined;
}
