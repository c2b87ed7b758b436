/**
 * Bounded loops (issue 28): `repeat: { until, max }` on a node. After the node completes, while `until` is
 * false it runs again as a new cycle, at most `max` cycles, then it escalates. Kept apart from schema.ts so other
 * additions to the schema stay separate blocks; the loader's part (`repeatField`, `checkRepeat`) is here too.
 */
import * as z from 'zod';
import {
  ExpressionSyntaxError,
  findTemplateSpans,
  parseExpression,
  stripDelimiters,
} from '../../expressions/evaluate.js';
import type { SourceError } from '../errors.js';
import { errorAt, type Path, type SourceDoc } from '../load/source.js';

/** Cycles a loop runs when `max` is not given: the protocol's "max 3 cycles, then escalate". */
const DEFAULT_MAX_CYCLES = 3;
/** The most cycles any loop may run: beyond this a loop is a run of its own, not one node. */
const MAX_CYCLES_LIMIT = 10;

export const RepeatSchema = z
  .strictObject({
    until: z.string().min(1).register(z.globalRegistry, {
      description:
        "One expression, evaluated after each cycle completes over the usual context (the node's own new outputs are `nodes.<id>.outputs`): when it is false the node runs again as a new cycle.",
    }),
    max: z
      .number()
      .int()
      .min(1)
      .max(MAX_CYCLES_LIMIT)
      .optional()
      .register(z.globalRegistry, {
        description: `The most cycles (default \`${DEFAULT_MAX_CYCLES}\`, at most \`${MAX_CYCLES_LIMIT}\`): after the last one, a false \`until\` escalates the node with each cycle's outcome.`,
      }),
  })
  .register(z.globalRegistry, {
    description:
      "A bounded loop: after the node completes, while `until` is false it runs again (a new cycle, journaled as `NodeCycleStarted`, its outputs replaced, each cycle's attempts and retries its own); dependents wait until the loop ends.",
  });

/** A node's loop as the loaded graph holds it (keys sorted for the hash). */
export interface Repeat {
  max: number;
  until: string;
}

/** The node's `repeat`, resolved; nothing without one, so graphs without loops hash as before. */
export function repeatField(n: { repeat?: z.infer<typeof RepeatSchema> | undefined }): { repeat?: Repeat } {
  if (!n.repeat) return {};
  return { repeat: { max: n.repeat.max ?? DEFAULT_MAX_CYCLES, until: n.repeat.until } };
}

/** `until` must be one expression that parses, like a condition. */
export function checkRepeat(
  src: SourceDoc,
  n: { id: string; repeat?: { until: string } | undefined },
  base: Path,
  errors: SourceError[],
): void {
  if (!n.repeat) return;
  const until = n.repeat.until;
  try {
    if (findTemplateSpans(until).length > 1)
      throw new ExpressionSyntaxError(
        'until is one expression: write it as one "${{ }}" (combine parts with && or ||)',
        until,
      );
    parseExpression(stripDelimiters(until));
  } catch (e) {
    errors.push(
      errorAt(src, [...base, 'repeat', 'until'], `node "${n.id}" repeat.until: ${(e as Error).message}`),
    );
  }
}
