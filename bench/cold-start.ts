// `npm run bench:cold-start`: only the cold start of dist/index.js against the bare bundle (the section
// `npm run bench` writes to docs/BENCHMARKS.md), printed, not written. BENCH_RUNS sets the runs (21 by default),
// BENCH_NODE24=0 leaves Node 24 out. Build dist/ first (`npm run build`): it measures the bundle as it is.
import { coldStart, coldStartTable } from './action.js';

const runs = Number(process.env.BENCH_RUNS ?? 21);
const cold = await coldStart(runs, process.env.BENCH_NODE24 !== '0');
console.log(coldStartTable(cold).join('\n'));
