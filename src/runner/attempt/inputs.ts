/** The node's own `env` and `prompt` of an attempt, expanded (moved out of attempt.ts, which stays under 300 lines). */
import { type ExpressionContext, interpolate } from '../../expressions/evaluate.js';
import type { Approach } from '../../graph/model.js';
import type { AttemptContext } from '../../protocol/attempt/context.js';
import { envelopeText } from '../../protocol/attempt/envelope.js';
import type { AttemptOutcome } from '../../protocol/decide.js';

type Failures = AttemptOutcome['failures'];

/** The node's own env values and prompt, expanded; a value that cannot be expanded is a failure. */
export function expandInputs(approach: Approach, exprCtx: ExpressionContext, context: AttemptContext) {
  const failures: Failures = [];
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(approach.env)) {
    try {
      env[k] = interpolate(v, exprCtx);
    } catch (e) {
      failures.push({ check: `env ${k}`, message: (e as Error).message });
    }
  }
  let stdin: string | undefined;
  if (approach.prompt !== undefined) {
    try {
      stdin = `${interpolate(approach.prompt, exprCtx)}\n${envelopeText(context)}`;
    } catch (e) {
      failures.push({ check: 'prompt', message: (e as Error).message });
    }
  }
  return { env, stdin, failures };
}
