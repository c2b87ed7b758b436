/**
 * Where the Action keeps each metered attempt's model exchange (issue 48): written in a folder of the step's own
 * under the job's temporary directory (mode 0700, made when the first recording is written; no node can reach it),
 * at the path the CLI would use, `.interlock/runs/<run-id>.logs/<node>-<attempt>.model.jsonl`, then uploaded as a
 * workflow artifact of this run holding that one file at that path (src/github/artifact-upload.ts), kept for
 * `recording-retention-days` or the repository's retention. The journal records the path, the SHA-256 and the
 * artifact; `interlock replay` finds the artifact through the REST API. `recording: none` keeps no recording.
 * Without the artifact service (no `ACTIONS_RESULTS_URL`), the step log says the recording stays on the runner.
 */
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileNameOf } from '../graph/schema/subgraph.js';
import type { RecordingPlace, Recordings } from '../runner/attempt/metered.js';
import type { ActionContext } from './context/context.js';

/** The artifact's name: unique in the workflow run (no run id or node name holds a `~`); GitHub forbids `/`. */
function recordingArtifactName(runId: string, node: string, attempt: number): string {
  return `interlock-recording~${runId.replaceAll('/', '~')}~${fileNameOf(node)}~${attempt}`;
}

/** The retention asked for, at most the repository's (`GITHUB_RETENTION_DAYS`, which the runner sets). */
function retention(ctx: ActionContext): number | undefined {
  const asked = ctx.inputs['recording-retention-days'];
  if (asked === undefined) return undefined;
  const most = Number(ctx.env.GITHUB_RETENTION_DAYS);
  return Number.isInteger(most) && most > 0 ? Math.min(asked, most) : asked;
}

/** Uploads one recording as its artifact; what the journal's record gains, or undefined (the log says why). */
async function upload(
  ctx: ActionContext,
  runId: string,
  rec: RecordingPlace & { text: string; node: string; attempt: number },
  warn: (m: string) => void,
): Promise<Record<string, unknown> | undefined> {
  const { artifactService, uploadArtifact } = await import('../github/artifact-upload.js');
  const { zipFiles } = await import('../os/zip.js');
  const where = `"${rec.node}" attempt ${rec.attempt}'s model exchange`;
  const service = artifactService(ctx.rawEnv);
  if (typeof service === 'string') {
    warn(`interlock: ${where} is kept on this runner only (${service}): no replay can fetch it`);
    return undefined;
  }
  const name = recordingArtifactName(runId, rec.node, rec.attempt);
  try {
    const zip = zipFiles([{ name: rec.path, data: Buffer.from(rec.text, 'utf8') }]);
    const done = await uploadArtifact(service, { name, zip, retentionDays: retention(ctx) });
    ctx.io.info(`interlock: ${where} is kept as the artifact "${name}" (${done.size} bytes)`);
    return {
      artifact: {
        repository: `${ctx.repo.owner}/${ctx.repo.repo}`,
        workflow_run_id: ctx.me.workflow_run_id,
        name,
        id: done.id,
      },
    };
  } catch (e) {
    warn(`interlock: ${where} could not be kept as an artifact (${(e as Error).message})`);
    return undefined;
  }
}

/** The Action's recordings for run `runId`, or undefined under `recording: none`. */
export function actionRecordings(ctx: ActionContext, runId: string): Recordings | undefined {
  if (ctx.inputs.recording === 'none') return undefined;
  let folder: string | undefined;
  return {
    secrets: ctx.secrets,
    place: (node, attempt) => {
      folder ??= mkdtempSync(join(ctx.env.RUNNER_TEMP ?? tmpdir(), 'interlock-recordings-'));
      const path = `.interlock/runs/${runId}.logs/${fileNameOf(node)}-${attempt}.model.jsonl`;
      const file = join(folder, path);
      mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
      return { file, path };
    },
    keep: async (rec, warn) => {
      const kept = await upload(ctx, runId, rec, warn);
      return { workspace: ctx.workspace, ...kept };
    },
  };
}
