/**
 * The one prompt of a serialized chain: each node's task (its prompt and its task envelope) in chain order,
 * under a header that says how the tasks are judged. Each node's outputs go to a file of its own
 * (`$INTERLOCK_OUTPUTS/<node>`). Every value is data, never interpolated or run. Pure.
 */
import type { AttemptContext } from './context.js';
import { envelopeText } from './envelope.js';

/** One node's part of the chain's prompt: its prompt (expanded) and its attempt context. */
export interface ChainTask {
  prompt: string;
  context: AttemptContext;
}

/** The chain's prompt, given to the agent on stdin. */
export function chainPrompt(session: string, tasks: readonly ChainTask[]): string {
  const n = tasks.length;
  const head = [
    `interlock: this message holds ${n} tasks of session "${session}", one after another. Do them in order,`,
    'each one fully before the next. When you finish them all, interlock checks each task in order, as its',
    'envelope says; the first that does not pass, and every task after it, will be given to you again, one a call.',
    '',
  ];
  const parts = tasks.map((t, i) => {
    const file = `$INTERLOCK_OUTPUTS/${t.context.node}`;
    return [
      `=== task ${i + 1} of ${n}: node "${t.context.node}" ===`,
      t.prompt,
      envelopeText(t.context, file),
    ].join('\n');
  });
  return `${head.join('\n')}${parts.join('\n')}`;
}
