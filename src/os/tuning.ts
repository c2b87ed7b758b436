/**
 * The `INTERLOCK_*` tuning variables the Action, the CLI and the App read from their environment: each one here,
 * once, with its default and what it means (docs/tuning.md lists the same, test/core/tuning.test.ts checks they
 * agree). A value that is set and not valid stops the face with one line naming the variable and what to set;
 * an unset or empty one takes the default. The App's own settings (page, redelivery) are in src/app/env.ts.
 */
import * as z from 'zod';

const ms = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d+$/, `a whole number of milliseconds from ${min} to ${max}`)
    .transform(Number)
    .pipe(z.number().min(min, `at least ${min}`).max(max, `at most ${max}`));

/** Each variable: its schema, its default (undefined: the client's own) and its docs line. */
export const TUNING = {
  INTERLOCK_STALE_READ_MS: {
    schema: ms(0, 9_999_999),
    // GitHub answered a read by branch name with the old file 10 s and more after a write (PyGithub #2709).
    default: 10_000,
    doc: "How stale GitHub's reads by branch name may be: a decision that acts on what the journal lacks waits for a read that began this long after its cause (0: reads are exact).",
  },
  INTERLOCK_LINE_UP_SLOT_MS: {
    schema: ms(100, 60_000),
    default: 2000,
    doc: "A line-up's slot: the time a job of a matrix is given for its two writes before the next job's turn.",
  },
  INTERLOCK_LIVE_EDIT_SECONDS: {
    schema: z
      .string()
      .trim()
      .regex(/^\d+(\.\d+)?$/, 'a number of seconds above 0')
      .transform(Number)
      .pipe(z.number().positive('above 0')),
    default: 30,
    doc: "Seconds between two edits of a node's live progress comment.",
  },
  INTERLOCK_RETRY_BASE_MS: {
    schema: ms(0, 60_000),
    default: 1000,
    doc: "The GitHub client's unit of a retry wait (a `retry-after` of 2 waits twice this).",
  },
  INTERLOCK_WRITE_INTERVAL_MS: {
    schema: ms(0, 60_000),
    default: 1000,
    doc: 'The least time between the starts of two writes to GitHub by one client (its content-creation limit).',
  },
  INTERLOCK_REQUEST_TIMEOUT_MS: {
    schema: ms(1, 600_000),
    default: 30_000,
    doc: 'The deadline of one request to GitHub; past it the request is retried as a server error.',
  },
  INTERLOCK_DISPATCH_LEASE_MS: {
    schema: ms(1000, 9_999_999),
    default: 60_000,
    doc: "An approval's claim on its dispatch: the face that journaled it dispatches within half of it; past the whole, a copy of the command that finds no workflow run dispatches instead.",
  },
} as const;

export type TuningName = keyof typeof TUNING;
/** Every tuning variable's value, parsed (the Action's context holds it: `ActionContext.tuning`). */
export type Tuning = { [K in TuningName]: number };

const parsed = new Map<string, Tuning>();

/**
 * The tuning variables of `env`, parsed once for each set of values (a step reads the same environment all
 * through). Throws one line naming the first bad variable, what it must be, and its default.
 */
export function readTuning(env: Readonly<Record<string, string | undefined>>): Tuning {
  const names = Object.keys(TUNING) as TuningName[];
  const values = names.map((n) => env[n] ?? '').join('\0');
  const known = parsed.get(values);
  if (known) return known;
  const out = {} as Tuning;
  for (const name of names) {
    const given = env[name];
    const spec = TUNING[name];
    if (given === undefined || given.trim() === '') {
      out[name] = spec.default;
      continue;
    }
    const r = spec.schema.safeParse(given);
    if (!r.success)
      throw new Error(
        `interlock: ${name}=${JSON.stringify(given)} is not valid: ${r.error.issues[0]?.message}; set it so or unset it (default ${spec.default})`,
      );
    out[name] = r.data;
  }
  parsed.set(values, out);
  return out;
}
