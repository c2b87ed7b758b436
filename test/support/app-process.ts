/**
 * The App's server as `npm start` runs it: `node dist/app.js` as a child process, with only the environment given
 * (plus PATH and HOME). Resolves once it prints where it receives webhooks; the crash matrix's App face and the
 * model-based test post signed deliveries to that URL. Needs `npm run build` (dist/ is not committed on branches).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const APP_BUNDLE = fileURLToPath(new URL('../../dist/app.js', import.meta.url));

export interface AppProcess {
  /** The webhook URL it printed (`http://127.0.0.1:<port>/api/github/webhooks`). */
  url: string;
  child: ChildProcess;
  exited: Promise<void>;
  /** SIGTERM, then waits for it to exit. */
  stop(): Promise<void>;
}

export async function startAppProcess(env: Record<string, string | undefined>): Promise<AppProcess> {
  const child = spawn(process.execPath, [APP_BUNDLE], {
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const exited = new Promise<void>((r) => child.on('close', () => r()));
  let out = '';
  const url = await new Promise<string>((resolve, reject) => {
    const seen = (d: Buffer) => {
      out += d.toString();
      const m = /receiving webhooks at (\S+)/.exec(out);
      if (m) resolve(m[1]!);
    };
    child.stdout!.on('data', seen);
    child.stderr!.on('data', seen);
    void exited.then(() => reject(new Error(`the App exited before it listened: ${out}`)));
  });
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
    await exited;
  };
  return { url, child, exited, stop };
}
