// Checks what .github/workflows/self-test.yml's `uses: ./` steps did, from the journal the Action wrote and the
// step's outputs: `node scripts/verify-self-test.mjs <journal.json>` with STATUS, CHECKPOINT and, for the second
// step, RESUMED_STATUS in the environment. Plain Node, no dependencies: the self-test proves the committed bundle
// without installing anything. Every finding is a ::error:: line and a failing exit code.
import { readFileSync } from 'node:fs';

const EXPECTED_EVENTS = [
  'RunStarted',
  'NodeDispatched write',
  'NodeRecorded write',
  'NodeDispatched read',
  'NodeRecorded read',
  'RunCompleted',
];

/** The findings for one journal and the step outputs; empty when the self-test passed. */
export function findings(journalText, env) {
  const out = [];
  let journal;
  try {
    journal = JSON.parse(journalText);
  } catch (e) {
    return [`the journal is not JSON: ${e.message}`];
  }
  const events = (journal.events ?? []).map((e) => (e.node ? `${e.type} ${e.node}` : e.type));
  if (JSON.stringify(events) !== JSON.stringify(EXPECTED_EVENTS))
    out.push(`journal events were [${events.join(', ')}], expected [${EXPECTED_EVENTS.join(', ')}]`);
  for (const e of journal.events ?? [])
    if (e.attempt !== undefined && e.attempt !== 1)
      out.push(`${e.type} ${e.node} is attempt ${e.attempt}, not 1`);
  // The first step's status is its last node's (`read` completed); the run's end shows in the checkpoint.
  if (env.STATUS !== 'completed') out.push(`the step's status output was "${env.STATUS}", not "completed"`);
  if (env.RESUMED_STATUS !== undefined && env.RESUMED_STATUS !== 'run-completed')
    out.push(`the second step's status was "${env.RESUMED_STATUS}": a completed run must stay completed`);
  let checkpoint;
  try {
    checkpoint = JSON.parse(env.CHECKPOINT ?? '');
  } catch {
    out.push("the step's checkpoint output is not JSON");
  }
  if (checkpoint && JSON.stringify(checkpoint.completed_nodes) !== JSON.stringify(['write', 'read']))
    out.push(`checkpoint completed_nodes was ${JSON.stringify(checkpoint.completed_nodes)}`);
  if (checkpoint && checkpoint.status !== 'completed')
    out.push(`checkpoint status was "${checkpoint.status}", not "completed"`);
  return out;
}

const file = process.argv[2];
if (!file) {
  console.error('usage: node scripts/verify-self-test.mjs <journal.json>');
  process.exit(2);
}
const problems = findings(readFileSync(file, 'utf8'), process.env);
for (const p of problems) console.log(`::error title=interlock self-test::${p.replace(/[\r\n%]/g, ' ')}`);
if (problems.length) process.exit(1);
console.log(`interlock self-test: the journal and the step outputs are as expected (${file})`);
