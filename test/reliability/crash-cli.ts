/**
 * The CLI face of the crash matrix: the bundled CLI (`node dist/cli.js`) on the file store, in a sandbox of its
 * own, SIGKILLed at a failpoint or mid-command; people act with its settlement verbs.
 */
import { readdirSync } from 'node:fs';
import { processesWithTag } from '../../src/os/processes.js';
import { Sandbox } from '../crash/harness.js';
import { acksIn, checkScenario } from './crash-check.js';
import {
  childFiles,
  GUIDANCE,
  graphName,
  graphText,
  STAND_IN,
  STAND_IN_SCRIPT,
  usesEngine,
} from './crash-graphs.js';
import type { Scenario } from './crash-model.js';
import { rerunFromNode, target } from './crash-model.js';
import { type Delivery, type Driver, play, Trail, type Verb } from './crash-play.js';
import { APPROVER } from './github-world.js';
import { gone, groupGone, killGroup, waitUntil } from './support.js';

export const NOTE = 'checked by hand: the side effect is there';
/** Who approves when the same approval is made anew at the CLI: another person. */
export const SECOND = 'bob';

/** Runs one scenario through the CLI; what it found wrong, and how many processes it started. */
export async function runCli(s: Scenario): Promise<{ problems: string[]; processes: number }> {
  const sb = new Sandbox('interlock-crash-cli-');
  const rec = new Trail();
  try {
    sb.write('g.yml', graphText(s));
    for (const [name, text] of Object.entries(childFiles(s))) sb.write(name, text);
    if (s.outcome === 'fail-once') sb.write('fail-once', '');
    if (usesEngine(s)) sb.write(STAND_IN, STAND_IN_SCRIPT);
    if (s.feature === 'stop') sb.write('overspend', '');
    await play(cliDriver(sb, rec, s), rec, s);
    const contexts = new Map<number, string>();
    for (const f of readdirSync(sb.dir))
      if (/^ctx-\d+\.json$/.test(f)) contexts.set(Number(f.slice(4, -5)), sb.read(f)!);
    const effects = sb.lines('effects.log');
    return {
      problems: [
        ...rec.problems,
        ...checkScenario({ scenario: s, snapshots: rec.snapshots, acks: rec.acks, effects, contexts }),
      ],
      processes: rec.processes,
    };
  } finally {
    await sb.cleanup();
  }
}

function personArgs(s: Scenario, verb: Verb, by: string): string[] {
  const t = target(s);
  const run = ['--run-id', graphName(s)];
  if (verb === 'fail-run') return ['fail-run', '--by', by, '--reason', 'a person stops the run', ...run];
  if (verb === 'settle') return ['settle', t, '--by', by, '--note', NOTE, ...run];
  if (verb === 'rerun-from') return ['rerun-from', rerunFromNode(s), '--by', by, ...run];
  const guidance = verb === 'approve' && s.feature === 'guidance' ? ['--guidance', GUIDANCE] : [];
  return [verb, t, '--by', by, ...guidance, ...run];
}

const ACKED: Partial<Record<Verb, 'NodeApproved' | 'RerunApproved' | 'NodeRecorded'>> = {
  approve: 'NodeApproved',
  'approve-rerun': 'RerunApproved',
  settle: 'NodeRecorded',
};

/** The execution tags the journal's dispatches carry (each attempt's command runs with its tag). */
function execTags(journal: string | null): string[] {
  return [...new Set([...(journal ?? '').matchAll(/"exec_tag":\s*"([^"]+)"/g)].map((m) => m[1]!))];
}

function cliDriver(sb: Sandbox, rec: Trail, s: Scenario): Driver {
  const run = graphName(s);
  const file = `.interlock/runs/${run}.json`;
  const all = ['run', 'g.yml', '--all', '--quiet'];
  const call = async (label: string, args: string[], env: Record<string, string> = {}) => {
    rec.processes++;
    const r = await sb.cli(args, env);
    rec.snapshots.push({ after: label, text: sb.read(file) ?? undefined });
    rec.acks.push(...acksIn(label, `${r.stderr}\n${r.stdout}`));
    return r;
  };
  return {
    async crashAt(fp) {
      const r = await call('crash', all, { INTERLOCK_FAILPOINTS: fp });
      rec.expect(r.signal === 'SIGKILL', `the failpoint ${fp} did not fire`, r.stderr);
      // The CLI died at the boundary; a command it had started (a serialized chain's) ends on its own a moment
      // later, on a loaded machine many moments: the scenario goes on once it has, as on an idle one.
      await waitUntil(
        () => execTags(sb.read(file)).every((tag) => processesWithTag(tag).tagged.length === 0),
        'the crashed CLI’s commands to end',
      );
    },
    async killMidCommand() {
      sb.write('hang', '');
      rec.processes++;
      const started = sb.start(all);
      await waitUntil(() => sb.exists('started'), 'the command to start hanging');
      const pid = Number(sb.read('pid')?.trim());
      started.child.kill('SIGKILL');
      killGroup(pid);
      const exit = await started.exited;
      await waitUntil(() => gone(pid) && groupGone(pid), 'the killed command and its group to exit');
      sb.remove('started');
      rec.snapshots.push({ after: 'killed mid-command', text: sb.read(file) ?? undefined });
      rec.acks.push(...acksIn('killed mid-command', exit.stderr));
      rec.expect(exit.signal === 'SIGKILL', 'the CLI was not killed mid-command', exit.stderr);
    },
    async recoverAfterKill(fp) {
      const r = await call(
        'recover (killed)',
        ['recover', '--run-id', run],
        fp ? { INTERLOCK_FAILPOINTS: fp } : {},
      );
      if (fp) rec.expect(r.signal === 'SIGKILL', `recover did not die at ${fp}`, r.stdout + r.stderr);
    },
    async step(label) {
      await call(label, all);
    },
    async recover(label) {
      await call(label, ['recover', '--run-id', run]);
    },
    async person(label, verb, opts: { delivery: Delivery; failpoint?: string }) {
      const by = opts.delivery === 'other' ? SECOND : APPROVER;
      const env = opts.failpoint ? { INTERLOCK_FAILPOINTS: opts.failpoint } : undefined;
      const r = await call(label, personArgs(s, verb, by), env);
      if (opts.failpoint)
        rec.expect(r.signal === 'SIGKILL', `${verb} did not die at ${opts.failpoint}`, r.stderr);
      const type = ACKED[verb];
      if (r.code === 0 && type) rec.acks.push({ by: label, type, node: target(s), person: by });
      if (r.code !== 0 && r.code !== 2 && !opts.failpoint)
        rec.expect(false, `${label}: ${verb} exited ${r.code}`, r.stderr);
      return r.code === 0;
    },
    async finish() {
      const fin = await call('finish', all);
      rec.expect(fin.code === 0, `the final run --all exited ${fin.code}`, fin.stderr);
    },
  };
}
