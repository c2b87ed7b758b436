// A workflow artifact through interlock's own client (issue 48): uploaded as a step uploads one (the artifact
// service's CreateArtifact, the blob, FinalizeArtifact, with the runner's runtime token), then found and read back
// through the REST API (the run's artifacts by name, the archive's redirect), against the local GitHub; and the
// zip module both use.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { artifactFile } from '../../src/github/artifact-download.js';
import { artifactService, uploadArtifact } from '../../src/github/artifact-upload.js';
import { createClient } from '../../src/github/client.js';
import { unzipFile, zipFiles } from '../../src/os/zip.js';
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';

const FULL = 'acme/widgets';
let github: GitHubServer;
let runId: number;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  github = await startGitHubServer({ repos: [{ owner: 'acme', name: 'widgets' }], likeGitHub: false });
  const repo = github.state.repo(FULL);
  runId = repo.addWorkflowRun({ workflow: 'interlock.yml', status: 'in_progress' }).id;
  env = {
    ACTIONS_RESULTS_URL: `${github.url}/`,
    ACTIONS_RUNTIME_TOKEN: github.state.artifacts.runtimeToken(repo, runId),
  };
});
afterAll(() => github?.close());

const reader = () =>
  createClient({ token: 'ghp_reader', baseUrl: github.url, retries: 0, retryAfterBaseValue: 1 });

describe('zip', () => {
  it('reads back what it wrote, and refuses a member past its bound or not matching its CRC-32', () => {
    const data = Buffer.from('{"call":1}\n'.repeat(1000));
    const zip = zipFiles([
      { name: 'a/b.jsonl', data },
      { name: 'c.txt', data: Buffer.from('') },
    ]);
    expect(unzipFile(zip, 'a/b.jsonl', 1e6)).toEqual(data);
    expect(unzipFile(zip, 'c.txt', 10)).toEqual(Buffer.from(''));
    expect(unzipFile(zip, 'missing', 10)).toBeUndefined();
    expect(() => unzipFile(zip, 'a/b.jsonl', 100)).toThrow(/over the 100 read/);
    const broken = Buffer.from(zip);
    const at = broken.indexOf('a/b.jsonl') + 12;
    broken.writeUInt8(broken.readUInt8(at) ^ 0xff, at);
    expect(() => unzipFile(broken, 'a/b.jsonl', 1e6)).toThrow();
  });
});

describe('an artifact uploaded through the results service and read back through the REST API', () => {
  it('round-trips one file; the journal-facing id is the REST id', async () => {
    const service = artifactService(env);
    if (typeof service === 'string') throw new Error(service);
    const data = Buffer.from('{"call":1,"request":"{}"}\n');
    const zip = zipFiles([{ name: '.interlock/runs/x.logs/work-1.model.jsonl', data }]);
    const up = await uploadArtifact(service, { name: 'interlock-recording~x~work~1', zip, retentionDays: 3 });
    const kinds = github.requests.countByKind();
    expect(kinds['POST /twirp/github.actions.results.api.v1.ArtifactService/CreateArtifact']).toBe(1);
    expect(kinds['PUT /_blob/artifacts/{id}']).toBe(1);
    expect(kinds['POST /twirp/github.actions.results.api.v1.ArtifactService/FinalizeArtifact']).toBe(1);
    const kept = github.state.artifacts.records.find((a) => a.id === up.id)!;
    expect(kept.digest).toBe(up.digest);
    expect(Date.parse(kept.expires_at) - Date.now()).toBeLessThanOrEqual(3 * 86_400_000);
    const place = {
      repository: FULL,
      workflow_run_id: runId,
      name: 'interlock-recording~x~work~1',
      id: up.id,
    };
    const got = await artifactFile(reader(), place, '.interlock/runs/x.logs/work-1.model.jsonl', 1e6);
    expect(got).toEqual(data);
    // A name the run does not have, or a member the archive does not hold, is said in words.
    expect(await artifactFile(reader(), { ...place, name: 'other', id: undefined }, 'x', 1e6)).toMatch(
      /has no artifact "other"/,
    );
    expect(await artifactFile(reader(), place, 'nothing-here', 1e6)).toMatch(/holds no nothing-here/);
  });

  it('refuses a second artifact of the same name in the run, and a step without the runtime token', async () => {
    const service = artifactService(env);
    if (typeof service === 'string') throw new Error(service);
    const zip = zipFiles([{ name: 'f', data: Buffer.from('x') }]);
    await uploadArtifact(service, { name: 'twice', zip });
    await expect(uploadArtifact(service, { name: 'twice', zip })).rejects.toThrow(
      /CreateArtifact answered 409: an artifact with this name already exists/,
    );
    expect(artifactService({ ACTIONS_RESULTS_URL: env.ACTIONS_RESULTS_URL })).toMatch(
      /no ACTIONS_RUNTIME_TOKEN/,
    );
    const forged = { ...service, token: `${service.token}x` };
    await expect(uploadArtifact(forged, { name: 'forged', zip })).rejects.toThrow(/answered 401/);
  });
});
