// GitHub requests an effect adds to a step: each effect kind run through dist/index.js (as a runner runs it)
// against the local GitHub, counted by the server, minus the same step with a plain command in the effect's
// place, measured in the same run (the journal's and the progress comment's requests cancel out).
import { effectWorlds, graph } from '../test/action/effect-world.js';
import { runStep } from '../test/support/action-process.js';
import { startGitHubServer } from '../test/support/github-server.js';

/** A 20-file change: 19 text files and one binary (a blob of its own; text goes inline in the tree). */
const TWENTY = `${Array.from({ length: 19 }, (_, i) => `      echo "file ${i}" > f${i}.txt`).join('\n')}
      printf '\\x00\\x01binary' > blob.bin`;
const BRANCH = 'interlock/issue-${{ github.event.issue.number }}';

export const EFFECT_NODES: Record<string, string> = {
  'push (20 files)': `    effect:\n      push: { branch: "${BRANCH}", message: fix }\n`,
  'pull_request (20 files, one label)': `    effect:\n      pull_request: { branch: "${BRANCH}", title: Fix, labels: [interlock] }\n`,
  comment: `    effect:\n      comment: { body: done }\n`,
  'labels (one added, one removed)': `    effect:\n      labels: { add: [has-fix], remove: [agent:ship] }\n`,
  release: `    effect:\n      release: { tag: "v\${{ github.event.issue.number }}", generate_notes: true }\n`,
};
const PLAIN = '    run: "true"\n';

export interface EffectRequests {
  effect: string;
  /** Requests the effect adds to the step, by kind. */
  added: Record<string, number>;
  total: number;
  /** The whole step, and the same step with a plain command instead. */
  step: number;
  baseline: number;
}

export async function requestsPerEffect(): Promise<EffectRequests[]> {
  // Exact request counts of one step at a time: the like-GitHub model (stale reads read again, the limit's
  // refusals) is off here; the fan-outs under it are bench/load-report.ts's.
  const server = await startGitHubServer({ repos: [{ owner: 'acme', name: 'widgets' }], likeGitHub: false });
  const world = effectWorlds(server, 5000);
  const count = async (node: string) => {
    const w = world(graph(`  - id: effect\n    depends_on: [implement]\n${node}`, TWENTY));
    const mark = server.requests.mark();
    const r = await runStep(w.step());
    if (r.outputs.status !== 'completed')
      throw new Error(`bench step did not complete: ${r.log.slice(-1500)}`);
    return server.requests.countByKind(mark);
  };
  try {
    // The server's first run creates the journal branch: a cost of the first step, not of an effect.
    await count(PLAIN);
    const out: EffectRequests[] = [];
    for (const [effect, node] of Object.entries(EFFECT_NODES)) {
      const base = await count(PLAIN);
      const step = await count(node);
      const added: Record<string, number> = {};
      for (const k of new Set([...Object.keys(step), ...Object.keys(base)])) {
        const d = (step[k] ?? 0) - (base[k] ?? 0);
        if (d) added[k] = d;
      }
      const sum = (m: Record<string, number>) => Object.values(m).reduce((a, b) => a + b, 0);
      out.push({ effect, added, total: sum(added), step: sum(step), baseline: sum(base) });
    }
    return out;
  } finally {
    await server.close();
  }
}
