import { startServer } from './server.js';

// `npm start`: the App's entry. Only starts the server; the logic lives in server.ts and handler.ts.
try {
  const app = await startServer(process.env);
  console.log(`interlock app: receiving webhooks at ${app.url}`);
} catch (e) {
  console.error((e as Error).message);
  process.exit(1);
}
