/** `interlock recover`: marks in-flight attempts whose process is gone as interrupted, and says what follows. */
import { parseArgs } from 'node:util';
import { recoveryWords } from '../../render/recovery-words.js';
import { recover } from '../../runner/recovery/recover.js';
import { EXIT, type Io, person } from '../io.js';
import { openExisting, runOptions, selectJournal } from '../journals.js';
import { stepSetup } from '../setup.js';
import { nextHint } from './status.js';

export async function cmdRecover(io: Io, args: string[]): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      ...runOptions,
      'assume-dead': { type: 'boolean' },
      'allow-graph-change': { type: 'boolean' },
      by: { type: 'string' },
    },
  });
  const journalFile = selectJournal(io, values);
  const { graph, setup } = await openExisting(io, {
    journalFile,
    graphPath: values.graph,
    allowChangeBy: values['allow-graph-change'] ? person(io, values.by) : undefined,
  });
  const r = await recover(
    stepSetup(io, setup, { journalFile, assumeDead: values['assume-dead'] ?? false, live: false }),
  );
  for (const id of r.interrupted) {
    const attempt = r.cur.state.nodes.get(id)?.attempts;
    io.out(`recovered: ${recoveryWords(r.cur.state, id, attempt !== undefined ? { attempt } : {})}\n`);
  }
  for (const l of r.left) io.out(`left alone: ${l.node}: ${l.why}\n`);
  if (!r.interrupted.length && !r.left.length) io.out('nothing in flight\n');
  // What goes on from here (on stderr, beside what recovery did): a held node's commands, or the run's.
  io.err(nextHint(r.cur, 'all', graph, values.journal));
  return EXIT.ok;
}
