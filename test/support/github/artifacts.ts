/**
 * Workflow artifacts (version 4) as GitHub keeps them, for the local GitHub:
 *
 * - the results service a step uploads through (`ACTIONS_RESULTS_URL` is the server's root): Twirp over JSON,
 *   `POST /twirp/github.actions.results.api.v1.ArtifactService/{CreateArtifact, FinalizeArtifact, ListArtifacts,
 *   GetSignedArtifactURL}` with `Authorization: Bearer <ACTIONS_RUNTIME_TOKEN>`; request fields by their proto
 *   names (`workflow_run_backend_id`, `workflow_job_run_backend_id`, `name`, `version`, `expires_at`, `size`,
 *   `hash`, `name_filter`), answers in protobuf's JSON names (`signedUploadUrl`, `artifactId`, `signedUrl`),
 *   errors as Twirp's `{ code, msg }` with its HTTP status;
 * - the blob store its signed URLs point at (`/_blob/artifacts/<id>`): Azure's Put Blob (`PUT`,
 *   `x-ms-blob-type: BlockBlob`, 201) with the upload signature, `GET` with a download signature; another
 *   signature is 403;
 * - the runtime token a runner gives a step (`runtimeToken`): a JWT whose `scp` holds
 *   `Actions.Results:<run backend id>:<job backend id>`, the ids standing for one workflow run of one repository.
 *
 * An artifact is listed by the REST API (routes/artifacts.ts) once finalized; its name is unique in its workflow
 * run; it expires at `expires_at` (asked for, else the repository's retention, 90 days).
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import type { RepoState } from './repo-state.js';
import type { Reply } from './router.js';

export const ARTIFACT_SERVICE = '/twirp/github.actions.results.api.v1.ArtifactService/';
export const BLOB_PREFIX = '/_blob/artifacts/';
const RETENTION_DAYS = 90;

export interface ArtifactRecord {
  readonly id: number;
  readonly repo: RepoState;
  readonly runId: number;
  readonly name: string;
  /** The upload URL's signature; the download's is `readSig`. */
  readonly sig: string;
  readonly readSig: string;
  /** The zip as uploaded (a test may change it, as storage gone bad or an attacker would). */
  body?: Buffer;
  digest?: string;
  finalized: boolean;
  readonly created_at: string;
  readonly expires_at: string;
}

interface Scope {
  repo: RepoState;
  runId: number;
  run: string;
  job: string;
}

const INVALID_NAME = /[":<>|*?\r\n\\/]/;

const TWIRP_STATUS: Record<string, number> = {
  invalid_argument: 400,
  unauthenticated: 401,
  permission_denied: 403,
  not_found: 404,
  already_exists: 409,
};

const twirpError = (code: string, msg: string): Reply => ({
  status: TWIRP_STATUS[code] ?? 500,
  body: { code, msg },
});

export class Artifacts {
  readonly records: ArtifactRecord[] = [];
  readonly #tokens = new Map<string, Scope>();
  #nextId = 7000;

  constructor(private readonly now: () => Date) {}

  /** The ACTIONS_RUNTIME_TOKEN a runner gives a step of workflow run `runId` of `repo`. */
  runtimeToken(repo: RepoState, runId: number): string {
    const scope = { repo, runId, run: randomUUID(), job: randomUUID() };
    const part = (o: unknown) => Buffer.from(JSON.stringify(o)).toString('base64url');
    const token = [
      part({ typ: 'JWT', alg: 'RS256' }),
      part({ scp: `Actions.ExampleScope Actions.Results:${scope.run}:${scope.job}`, ac: '[]' }),
      randomBytes(16).toString('base64url'),
    ].join('.');
    this.#tokens.set(token, scope);
    return token;
  }

  /** The artifacts of a workflow run the REST API shows: finalized ones, oldest first. */
  ofRun(repo: RepoState, runId: number): ArtifactRecord[] {
    return this.records.filter((a) => a.repo === repo && a.runId === runId && a.finalized);
  }

  find(repo: RepoState, id: number): ArtifactRecord | undefined {
    return this.records.find((a) => a.repo === repo && a.id === id && a.finalized);
  }

  expired(a: ArtifactRecord): boolean {
    return Date.parse(a.expires_at) <= this.now().getTime();
  }

  blobUrl(base: string, a: ArtifactRecord, forReading: boolean): string {
    return `${base}${BLOB_PREFIX}${a.id}?sv=2023-11-03&sig=${forReading ? a.readSig : a.sig}`;
  }

  /** A results-service call: the Twirp method, its JSON body and the bearer token. */
  rpc(base: string, method: string, body: Record<string, unknown>, auth: string | undefined): Reply {
    const scope = this.#tokens.get(/^Bearer (\S+)$/.exec(auth ?? '')?.[1] ?? '');
    if (!scope) return twirpError('unauthenticated', 'a runtime token is required');
    if (body.workflow_run_backend_id !== scope.run || body.workflow_job_run_backend_id !== scope.job)
      return twirpError('permission_denied', "the backend ids are not the token's");
    const ofRun = (name: unknown) =>
      this.records.find((a) => a.repo === scope.repo && a.runId === scope.runId && a.name === name);
    if (method === 'CreateArtifact') return this.#create(base, scope, body, ofRun(body.name));
    if (method === 'FinalizeArtifact') return this.#finalize(body, ofRun(body.name));
    if (method === 'ListArtifacts') {
      const all = this.ofRun(scope.repo, scope.runId).filter(
        (a) => body.name_filter === undefined || a.name === body.name_filter,
      );
      return {
        status: 200,
        body: {
          artifacts: all.map((a) => ({
            workflowRunBackendId: scope.run,
            workflowJobRunBackendId: scope.job,
            databaseId: String(a.id),
            name: a.name,
            size: String(a.body?.length ?? 0),
            createdAt: a.created_at,
            ...(a.digest ? { digest: a.digest } : {}),
          })),
        },
      };
    }
    if (method === 'GetSignedArtifactURL') {
      const a = ofRun(body.name);
      if (!a?.finalized) return twirpError('not_found', 'no such artifact');
      return { status: 200, body: { signedUrl: this.blobUrl(base, a, true) } };
    }
    return twirpError('not_found', `no method ${method}`);
  }

  #create(base: string, scope: Scope, body: Record<string, unknown>, same?: ArtifactRecord): Reply {
    const name = body.name;
    if (typeof name !== 'string' || !name || INVALID_NAME.test(name))
      return twirpError('invalid_argument', `the artifact name ${JSON.stringify(name)} is not valid`);
    if (typeof body.version !== 'number' || body.version < 4)
      return twirpError('invalid_argument', 'version 4 or later is required');
    if (same)
      return twirpError('already_exists', 'an artifact with this name already exists on the workflow run');
    const asked = typeof body.expires_at === 'string' ? Date.parse(body.expires_at) : Number.NaN;
    if (body.expires_at !== undefined && Number.isNaN(asked))
      return twirpError('invalid_argument', 'expires_at is not a timestamp');
    const now = this.now().getTime();
    const a: ArtifactRecord = {
      id: this.#nextId++,
      repo: scope.repo,
      runId: scope.runId,
      name,
      sig: randomBytes(12).toString('base64url'),
      readSig: randomBytes(12).toString('base64url'),
      finalized: false,
      created_at: new Date(now).toISOString(),
      expires_at: new Date(Number.isNaN(asked) ? now + RETENTION_DAYS * 86_400_000 : asked).toISOString(),
    };
    this.records.push(a);
    return { status: 200, body: { ok: true, signedUploadUrl: this.blobUrl(base, a, false) } };
  }

  #finalize(body: Record<string, unknown>, a?: ArtifactRecord): Reply {
    if (!a || a.finalized || !a.body) return twirpError('not_found', 'no uploaded artifact to finalize');
    if (String(body.size) !== String(a.body.length))
      return twirpError('invalid_argument', `size ${String(body.size)} is not ${a.body.length}`);
    const digest = `sha256:${createHash('sha256').update(a.body).digest('hex')}`;
    if (body.hash !== undefined && body.hash !== digest)
      return twirpError('invalid_argument', `hash ${String(body.hash)} is not the upload's`);
    a.finalized = true;
    a.digest = digest;
    return { status: 200, body: { ok: true, artifactId: String(a.id) } };
  }

  /** A request to the blob store: Put Blob with the upload signature, GET with the download one. */
  blob(method: string, url: URL, headers: Record<string, unknown>, raw: Buffer): Reply {
    const a = this.records.find((x) => url.pathname === `${BLOB_PREFIX}${x.id}`);
    const sig = url.searchParams.get('sig');
    const refused: Reply = {
      status: 403,
      raw: Buffer.from(
        '<?xml version="1.0" encoding="utf-8"?><Error><Code>AuthenticationFailed</Code></Error>',
      ),
      contentType: 'application/xml',
    };
    if (!a) return { status: 404, raw: Buffer.from('BlobNotFound'), contentType: 'text/plain' };
    if (method === 'PUT') {
      if (sig !== a.sig || a.finalized) return refused;
      if (headers['x-ms-blob-type'] !== 'BlockBlob')
        return {
          status: 400,
          raw: Buffer.from('MissingRequiredHeader x-ms-blob-type'),
          contentType: 'text/plain',
        };
      a.body = raw;
      return { status: 201, headers: { etag: `"0x${a.id}"`, 'x-ms-request-id': randomUUID() } };
    }
    if (method === 'GET' && sig === a.readSig && a.finalized && a.body)
      return { status: 200, raw: a.body, contentType: 'application/zip' };
    return refused;
  }
}
