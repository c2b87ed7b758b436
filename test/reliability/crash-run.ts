/**
 * Runs crash scenarios for real, a few at a time: the bundled CLI (file store), the bundled Action (git or
 * check-run store, against one local GitHub shared by every scenario) or the App server is SIGKILLed at a
 * boundary, the run is carried on as people would, and what it left behind is checked. Each scenario has its own
 * directory, run and processes.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ORDER_CLOCK } from '../support/clock.js';
import { runAction } from './crash-action.js';
import { runApp } from './crash-app.js';
import { runCli } from './crash-cli.js';
import { graphFiles } from './crash-graphs.js';
import type { Scenario } from './crash-model.js';
import { type ActionWorld, startActionWorld } from './github-world.js';
import { concurrency, pool } from './support.js';

export interface ScenarioResult {
  id: string;
  scenario: Scenario;
  problems: string[];
  ms: number;
  processes: number;
}

/** Interleaves the faces: the Action's steps and the CLI's calls load the machine differently. */
function interleave(scenarios: Scenario[]): Scenario[] {
  const lists = (['action', 'cli', 'app'] as const).map((f) => scenarios.filter((s) => s.face === f));
  const order: Scenario[] = [];
  for (let i = 0; i < Math.max(...lists.map((l) => l.length)); i++)
    for (const l of lists) if (l[i]) order.push(l[i]!);
  return order;
}

/** Runs the scenarios `jobs` at a time; calls `onResult` as each ends. */
export async function runCrashScenarios(
  scenarios: Scenario[],
  opts: { jobs?: number; onResult?: (r: ScenarioResult) => void } = {},
): Promise<ScenarioResult[]> {
  const root = mkdtempSync(join(tmpdir(), 'interlock-crash-matrix-'));
  // Runner directories and sandboxes go under root, which is removed at the end.
  const savedTmp = process.env.TMPDIR;
  process.env.TMPDIR = root;
  let world: ActionWorld | undefined;
  if (scenarios.some((s) => s.face !== 'cli'))
    world = await startActionWorld({
      files: graphFiles(scenarios.filter((s) => s.face !== 'cli')),
      likeGitHub: { secondaryLimit: false, ...ORDER_CLOCK },
    });
  try {
    const results = await pool(interleave(scenarios), opts.jobs ?? concurrency(), async (s) => {
      const t0 = Date.now();
      let r: { problems: string[]; processes: number };
      try {
        r =
          s.face === 'cli'
            ? await runCli(s)
            : s.face === 'app'
              ? await runApp(s, world!, root)
              : await runAction(s, world!, root);
      } catch (e) {
        r = { problems: [`the scenario could not run: ${(e as Error).stack}`], processes: 0 };
      }
      const result = { id: s.id, scenario: s, ...r, ms: Date.now() - t0 };
      opts.onResult?.(result);
      return result;
    });
    return scenarios.map((s) => results.find((r) => r.id === s.id)!);
  } finally {
    await world?.close();
    if (savedTmp === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = savedTmp;
    rmSync(root, { recursive: true, force: true });
  }
}
