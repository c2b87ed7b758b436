/**
 * A workflow artifact made from inside a step, through the artifact service (version 4) that `actions/upload-artifact`
 * uses, written here from its published protocol:
 *
 * 1. `POST <results origin>/twirp/github.actions.results.api.v1.ArtifactService/CreateArtifact`, Twirp's JSON with
 *    the proto's field names, `Authorization: Bearer <ACTIONS_RUNTIME_TOKEN>`: `workflow_run_backend_id`,
 *    `workflow_job_run_backend_id` (from the token's `Actions.Results:<run>:<job>` scope), `name`, `version` 4,
 *    and `expires_at` when a retention is asked for; it answers `ok` and `signed_upload_url`.
 * 2. The zip to that URL: Azure Blob Storage's Put Blob (`PUT`, `x-ms-blob-type: BlockBlob`), answered 201.
 * 3. `FinalizeArtifact` with the same ids and name, the `size` in bytes and the `hash` (`sha256:<hex>`); it answers
 *    `ok` and `artifact_id`.
 *
 * Twirp answers in either JSON spelling of a field (`signed_upload_url`, `signedUploadUrl`): both are read. An
 * error is one line naming the call and what the service said; the signed URL is never put in a message.
 */
import { createHash } from 'node:crypto';
import { httpFetch } from './http-fetch.js';

const SERVICE = 'github.actions.results.api.v1.ArtifactService';
const TIMEOUT_MS = 60_000;

/** Where the step's artifact service is and the token it takes: the runner's `ACTIONS_RESULTS_URL` and token. */
interface ArtifactService {
  origin: string;
  token: string;
  run: string;
  job: string;
}

/** The workflow run's and job's backend ids, from the runtime token's `Actions.Results:<run>:<job>` scope. */
function backendIds(token: string): { run: string; job: string } | undefined {
  try {
    const claims = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as {
      scp?: unknown;
    };
    for (const scope of String(claims.scp ?? '').split(' ')) {
      const parts = scope.split(':');
      if (parts[0] === 'Actions.Results' && parts.length === 3 && parts[1] && parts[2])
        return { run: parts[1], job: parts[2] };
    }
  } catch {
    // Not a token of the shape the runner gives: said below.
  }
  return undefined;
}

/** The step's artifact service, or why there is none, in words. */
export function artifactService(env: NodeJS.ProcessEnv): ArtifactService | string {
  const url = env.ACTIONS_RESULTS_URL;
  const token = env.ACTIONS_RUNTIME_TOKEN;
  if (!url) return 'the runner gave this step no artifact service (no ACTIONS_RESULTS_URL)';
  if (!token) return 'the runner gave this step no ACTIONS_RUNTIME_TOKEN';
  const ids = backendIds(token);
  if (!ids) return "the step's ACTIONS_RUNTIME_TOKEN names no workflow run for the artifact service";
  let origin: string;
  try {
    origin = new URL(url).origin;
  } catch {
    return 'ACTIONS_RESULTS_URL is not a URL';
  }
  return { origin, token, ...ids };
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Whether a failed call is worth another try: a server error, a rate limit, or no answer at all. */
const transient = (e: unknown) => /answered (5\d\d|429)|fetch failed|aborted|timeout/i.test(String(e));

/**
 * One Twirp call, tried up to three times while it fails for a passing reason (0.5 s, then 1.5 s apart); its
 * answer's JSON object, or an error naming the call.
 */
async function twirp(
  s: ArtifactService,
  method: string,
  body: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  for (let tries = 0; ; tries++) {
    try {
      return await twirpOnce(s, method, body);
    } catch (e) {
      if (tries >= 2 || !transient(e)) throw e;
      await sleep(500 * 3 ** tries);
    }
  }
}

async function twirpOnce(
  s: ArtifactService,
  method: string,
  body: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const res = await httpFetch(`${s.origin}/twirp/${SERVICE}/${method}`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      authorization: `Bearer ${s.token}`,
      'user-agent': 'interlock',
    },
    body: JSON.stringify(body),
    signal: AbortSignal.timeout(TIMEOUT_MS),
  });
  const text = await res.text();
  let answer: Record<string, unknown> = {};
  try {
    answer = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // Said below.
  }
  if (!res.ok) {
    const said = typeof answer.msg === 'string' ? answer.msg : text.slice(0, 200);
    throw new Error(`${method} answered ${res.status}: ${said}`);
  }
  if (answer.ok !== true) throw new Error(`${method} did not answer ok`);
  return answer;
}

/** A field of a Twirp answer in either of its JSON spellings (`signed_upload_url` or `signedUploadUrl`). */
function field(answer: Record<string, unknown>, protoName: string): unknown {
  const camel = protoName.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
  return answer[protoName] ?? answer[camel];
}

/** Put Blob of `zip` to the signed URL, as the service's blob store takes one whole block blob. */
async function putBlob(url: string, zip: Buffer): Promise<void> {
  const res = await httpFetch(url, {
    method: 'PUT',
    headers: {
      'x-ms-blob-type': 'BlockBlob',
      'x-ms-version': '2023-11-03',
      'x-ms-blob-content-type': 'application/zip',
      'content-type': 'application/octet-stream',
      'content-length': String(zip.length),
    },
    body: zip,
    signal: AbortSignal.timeout(TIMEOUT_MS * 5),
  });
  if (res.status !== 201) throw new Error(`the upload of the archive answered ${res.status}`);
}

interface UploadedArtifact {
  id: number;
  size: number;
  /** `sha256:<hex>` of the zip, as the REST API's `digest` gives it. */
  digest: string;
}

/**
 * Uploads `zip` as the workflow run's artifact `name`, kept `retentionDays` when given (else the repository's
 * retention). Throws one line naming the step that failed.
 */
export async function uploadArtifact(
  s: ArtifactService,
  a: { name: string; zip: Buffer; retentionDays?: number | undefined },
): Promise<UploadedArtifact> {
  const ids = { workflow_run_backend_id: s.run, workflow_job_run_backend_id: s.job, name: a.name };
  const expires =
    a.retentionDays !== undefined
      ? { expires_at: new Date(Date.now() + a.retentionDays * 86_400_000).toISOString() }
      : {};
  const created = await twirp(s, 'CreateArtifact', { ...ids, version: 4, ...expires });
  const url = field(created, 'signed_upload_url');
  if (typeof url !== 'string' || !url) throw new Error('CreateArtifact gave no upload URL');
  await putBlob(url, a.zip);
  const digest = `sha256:${createHash('sha256').update(a.zip).digest('hex')}`;
  const done = await twirp(s, 'FinalizeArtifact', { ...ids, size: String(a.zip.length), hash: digest });
  const id = Number(field(done, 'artifact_id'));
  if (!Number.isSafeInteger(id) || id <= 0) throw new Error('FinalizeArtifact gave no artifact id');
  return { id, size: a.zip.length, digest };
}
