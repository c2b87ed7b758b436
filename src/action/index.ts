import { run } from './runner.js';

// The action's entry: only calls run(). Do not add logic here.
await run();
