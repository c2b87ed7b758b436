import { runPost } from './entry.js';

// The post step's entry: only calls runPost(). Do not add logic here.
await runPost();
