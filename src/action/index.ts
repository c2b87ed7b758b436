import { run } from './entry.js';

// The action's entry: only calls run(). Do not add logic here.
await run();
