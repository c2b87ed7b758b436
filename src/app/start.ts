import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { sweepWords } from './deliveries.js';
import { parseReceiveArgs, receive } from './receive.js';
import { readServerEnv, redeliverOnce, startServer } from './server.js';
import { startSetupServer } from './setup.js';

// `npm start` (dist/app.js): the App's entry. Reads .env from the working directory when there is one; serves the
// webhooks, or setup mode when APP_ID is not set; `receive` delivers a saved payload instead; `redeliver` asks
// GitHub once for the deliveries it could not make. No logic lives here.
/** Resolves with an exit code, or undefined while a server keeps the process alive. */
async function main(argv: string[], env: NodeJS.ProcessEnv): Promise<number | undefined> {
  const dotenv = join(process.cwd(), '.env');
  if (existsSync(dotenv)) {
    // Node 20.12 added loadEnvFile; the floor is 20.
    if (typeof process.loadEnvFile !== 'function')
      throw new Error(
        `${dotenv}: reading .env needs Node 20.12 or later; set its variables in the environment instead`,
      );
    process.loadEnvFile(dotenv);
  }
  if (argv[0] === 'receive') {
    const answer = await receive(parseReceiveArgs(argv.slice(1)), env);
    console.log(`interlock app: the delivery was answered ${answer.status} ${answer.body.trim()}`);
    return answer.status >= 200 && answer.status < 300 ? 0 : 1;
  }
  if (argv[0] === 'redeliver') {
    // One sweep of the deliveries GitHub could not make, for a cron (INTERLOCK_REDELIVER=off on the replicas).
    const r = await redeliverOnce(env);
    console.log(sweepWords(r));
    return 0;
  }
  if (!env.APP_ID) {
    await startSetupServer(env, { dir: process.cwd() });
    return undefined;
  }
  const app = await startServer(env);
  console.log(`interlock app: receiving webhooks at ${app.url}`);
  // A host stops a replica with SIGTERM (a deploy, a scale-down) and kills it some seconds later (Cloud Run 10 s,
  // Kubernetes 30 s): the deliveries in hand are finished first, within INTERLOCK_STOP_MS.
  const stopMs = readServerEnv(env).INTERLOCK_STOP_MS;
  for (const signal of ['SIGTERM', 'SIGINT'] as const)
    process.once(signal, () => {
      void app.stop?.(stopMs).then((left) => {
        console.log(
          `interlock app: stopped on ${signal}${left ? `; ${left} deliveries still in hand, found again at the next start` : ''}`,
        );
        process.exit(0);
      });
    });
  return undefined;
}

try {
  const code = await main(process.argv.slice(2), process.env);
  if (code !== undefined) process.exit(code);
} catch (e) {
  console.error((e as Error).message);
  process.exit(1);
}
