// npm run reliability: the full reliability and security suites (crash points, races, API faults, hostile
// input, injection, fuzzing), and the table of figures docs/RELIABILITY.md holds.
//
//   npm run reliability                        everything (tens of minutes on 2 busy cores)
//   npm run reliability -- --only crash,races  some suites
//   npm run reliability -- --jobs 4            scenarios at once (default: 4 a core, at most 12)
//   npm run reliability -- --write-doc         also rewrite the table in docs/RELIABILITY.md
//   npm run reliability -- --grep 'session:mid-command' --repeat 20
//                                              only the crash scenarios and fault cases whose id matches the
//                                              pattern (a regular expression), each run 20 times; each failure
//                                              is listed with its id and its repetition (#k)
//   npm run reliability -- --table out.md      also write the table (and any failures) to out.md
import { parseArgs } from 'node:util';
import { concurrency } from '../test/reliability/support.js';

export const SUITES = ['crash', 'races', 'faults', 'hostile', 'injection', 'fuzz', 'model'] as const;
export type Suite = (typeof SUITES)[number];

export const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    jobs: { type: 'string' },
    'write-doc': { type: 'boolean' },
    writers: { type: 'string' },
    'fuzz-scale': { type: 'string' },
    grep: { type: 'string' },
    repeat: { type: 'string' },
    table: { type: 'string' },
    // Internal: the process that runs races and faults beside the crash matrix writes its figures here.
    rows: { type: 'string' },
    // Internal: which part of the model suite that process runs (`github`).
    'model-part': { type: 'string' },
  },
});
export const GREP = values.grep === undefined ? undefined : pattern(values.grep);
export const REPEAT = values.repeat === undefined ? 1 : Number(values.repeat);
if (!Number.isInteger(REPEAT) || REPEAT < 1)
  throw new Error(`--repeat: "${values.repeat}" is not a whole number of times (1 or more)`);
if ((GREP || REPEAT > 1) && values['write-doc'])
  throw new Error('--write-doc writes the whole table: run it without --grep and --repeat');
// A pattern picks scenarios and cases by id: the suites that have them, unless --only says otherwise.
export const only = (values.only?.split(',') ?? (GREP ? ['crash', 'faults'] : SUITES)) as Suite[];
for (const s of only)
  if (!SUITES.includes(s)) throw new Error(`--only: unknown suite "${s}"; known: ${SUITES.join(', ')}`);
export const jobs = values.jobs === undefined ? concurrency() : Number(values.jobs);
if (!Number.isInteger(jobs) || jobs < 1)
  throw new Error(`--jobs: "${values.jobs}" is not a whole number of scenarios at once (1 or more)`);
export const WRITERS = values.writers ? Number(values.writers) : 32;
export const FUZZ_SCALE = values['fuzz-scale'] ?? '2000';
function pattern(text: string): RegExp {
  try {
    return new RegExp(text);
  } catch (e) {
    throw new Error(`--grep: "${text}" is not a regular expression (${(e as Error).message})`);
  }
}
