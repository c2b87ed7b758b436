// An attempt recorded on GitHub, replayed on a person's machine (issue 48): the bundled action runs the real Claude
// Code as a node against the scripted model server, under the default isolation (as root, and as a runner user with
// passwordless sudo as on GitHub's hosted runners), with the local GitHub's
// results service as the runner's artifact service. The key proxy records the attempt and the step uploads the
// recording as a workflow artifact (CreateArtifact, the blob, FinalizeArtifact); the journal names the artifact and
// the recording's SHA-256. Then `interlock replay`, in a fresh directory holding only the graph and the journal,
// finds the artifact through the REST API, downloads it, checks the hash and replays the attempt with no key: the
// same tool calls, and the model server gets no request. An artifact changed after the run is refused (exit 2),
// nothing is written and the journal stays byte for byte.
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { unzipFile, zipFiles } from '../../src/os/zip.js';
import { shellWord } from '../../src/protocol/engines/engine.js';
import {
  eventsOf,
  FULL,
  issueStep,
  journalText,
  OWNER,
  REPO,
  readJournal,
  routeLabel,
} from '../action/world.js';
import { requireBundle, Sandbox } from '../crash/harness.js';
import { makeWorkspace, runStep } from '../support/action-process.js';
import { claudeBin, missing } from '../support/agent-clis.js';
import { type FaultRule, type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { type ModelServer, type ScriptedTurn, startModelServer } from '../support/model-server.js';
import { giveTo, noSudoRunner, type RunnerUser, sudoRunner } from '../support/sudo-runner.js';

const MODEL = 'claude-sonnet-4-5-20250929';
const GRAPH_FILE = '.github/interlock/replayed.yml';
const ISSUE = 12;
const graph = `interlock: 1
name: replayed
defaults:
  engine: claude-code
nodes:
  - id: work
    agent: ${JSON.stringify([claudeBin ?? 'claude', '-p', '--model', MODEL, '--allowedTools', 'Bash'].map(shellWord).join(' '))}
    prompt: Append to calls.txt until told to stop.
    validates:
      - file: calls.txt
`;

const bash = (n: number): ScriptedTurn => ({
  text: `Call ${n}.`,
  tools: [
    {
      name: 'Bash',
      input: { command: `echo ${n} >> calls.txt && echo appended ${n}`, description: 'append' },
    },
  ],
  usage: { input_tokens: 1000, output_tokens: 100 },
});

const why =
  missing('claude') ?? (process.getuid?.() !== 0 ? 'nodes run isolated only as root here' : undefined);
if (why) console.warn(`replay-artifact.test.ts skipped: ${why}`);

interface Ref {
  path: string;
  sha256: string;
  calls: number;
  workspace?: string;
  artifact?: { repository: string; workflow_run_id: number; name: string; id: number };
}

let github: GitHubServer | undefined;
const models: ModelServer[] = [];
const sandboxes: Sandbox[] = [];
beforeAll(requireBundle);
afterAll(async () => {
  for (const sb of sandboxes) await sb.cleanup();
  await github?.close();
  for (const m of models) await m.close();
});

interface Recorded {
  run: string;
  journal: string;
  ref: Ref;
  model: ModelServer;
  /** The step's log. */
  log: string;
}

/**
 * A run on issue `issue`: one Claude Code attempt through the bundled action (as root, or as a runner user with
 * passwordless sudo, as on GitHub's hosted runners), its recording kept as an artifact.
 */
async function recordedOnGitHub(
  issue: number,
  as?: RunnerUser,
  more: { inputs?: Record<string, string>; env?: Record<string, string>; fault?: FaultRule } = {},
): Promise<Recorded> {
  github ??= await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
  const model = await startModelServer({ script: [bash(1), bash(2), { text: 'Done.' }] });
  models.push(model);
  const ws = makeWorkspace({
    '.github/interlock.yml': routeLabel('agent:r', GRAPH_FILE),
    [GRAPH_FILE]: graph,
  });
  const repo = github.state.repo(FULL);
  repo.addIssue({ number: issue, title: 'replayed', labels: ['agent:r'] });
  const runnerTemp = mkdtempSync(join(tmpdir(), 'interlock-job-temp-'));
  if (as) for (const p of [ws, runnerTemp, as.home]) giveTo(p, as);
  const step = issueStep(github, ws, issue, 'agent:r', {
    ...(as ? { as: { uid: as.uid, gid: as.gid, home: as.home } } : {}),
    inputs: more.inputs ?? {},
  });
  step.env = {
    ANTHROPIC_BASE_URL: model.url,
    ANTHROPIC_API_KEY: 'sk-ant-REALKEY-artifact',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    RUNNER_TEMP: runnerTemp,
    ...(as ? { HOME: as.home } : {}),
    ACTIONS_RESULTS_URL: `${github.url}/`,
    ACTIONS_RUNTIME_TOKEN: github.state.artifacts.runtimeToken(repo, step.job.runId),
    ...more.env,
  };
  const fault = more.fault ? github.faults.inject(more.fault) : undefined;
  const result = await runStep(step).finally(() => fault?.remove());
  expect(result.outputs.status, result.log.slice(-3000)).toBe('completed');
  const run = `replayed/issue-${issue}`;
  const recorded = eventsOf(readJournal(github, run), 'NodeRecorded', 'work')[0]!;
  const ref = (recorded.usage as { metered?: { recording?: Ref } }).metered!.recording!;
  if (more.inputs?.recording === 'none' || more.fault)
    return { run, journal: journalText(github, run)!, ref, model, log: result.log };
  expect(ref.artifact, result.log.slice(-3000)).toMatchObject({
    repository: FULL,
    workflow_run_id: step.job.runId,
    name: `interlock-recording~replayed~issue-${issue}~work~1`,
  });
  expect(ref.path).toBe(`.interlock/runs/${run}.logs/work-1.model.jsonl`);
  expect(ref.workspace).toBe(ws);
  return { run, journal: journalText(github, run)!, ref, model, log: result.log };
}

let asRoot: Promise<Recorded> | undefined;
/** The run as root, made once for the tests that share it. */
const recordedAsRoot = () => {
  asRoot ??= recordedOnGitHub(ISSUE);
  return asRoot;
};

/** A person's fresh directory: the graph and the run's journal (fetched from its branch), nothing else. */
function freshDirectory(r: Recorded): Sandbox {
  const sb = new Sandbox('interlock-replay-artifact-');
  sandboxes.push(sb);
  for (const [path, text] of [
    ['.github/interlock.yml', routeLabel('agent:r', GRAPH_FILE)],
    [GRAPH_FILE, graph],
    [`.interlock/runs/${r.run}.json`, r.journal],
  ] as const) {
    mkdirSync(dirname(sb.path(path)), { recursive: true });
    writeFileSync(sb.path(path), text);
  }
  return sb;
}

/**
 * What `interlock replay` needs to reach GitHub, and a model server it must never call. Claude Code tells the model
 * its shell (`$SHELL`), which the step here did not have: the person's machine is made to agree.
 */
const personEnv = (sb: Sandbox, model: ModelServer) => ({
  SHELL: '',
  GH_TOKEN: 'ghp_person',
  GITHUB_API_URL: github!.url,
  ANTHROPIC_BASE_URL: model.url,
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  CLAUDE_CONFIG_DIR: sb.path('claude'),
  HOME: sb.path('claude'),
});

/** Replays `r` from a fresh directory: it is fetched, reproduced, and no model call goes out. */
async function replayedFromArtifact(r: Recorded): Promise<Sandbox> {
  const served = r.model.requests.length;
  const sb = freshDirectory(r);
  const out = await sb.start(['replay', r.run, 'work'], personEnv(sb, r.model)).exited;
  expect(out.code, out.stderr.slice(-3000)).toBe(0);
  expect(out.stderr).toContain(`downloaded ${r.ref.path} from the artifact "${r.ref.artifact!.name}"`);
  expect(out.stderr).toContain(`reproduced: its ${r.ref.calls} model calls were answered from the recording`);
  expect(r.model.requests).toHaveLength(served);
  const replays = readdirSync(sb.path(`.interlock/replays/${r.run}`));
  expect(replays).toHaveLength(1);
  const summary = JSON.parse(sb.read(`.interlock/replays/${r.run}/${replays[0]}/replay.json`)!) as {
    answered: number[];
    workspace: string;
  };
  expect(summary.answered).toHaveLength(r.ref.calls);
  // The recorded tool calls ran again, for real, in the replay's copy of the fresh directory.
  expect(readFileSync(join(summary.workspace, 'calls.txt'), 'utf8')).toBe('1\n2\n');
  expect(sb.read(`.interlock/runs/${r.run}.json`)).toBe(r.journal);
  return sb;
}

describe.skipIf(!!why)('an attempt recorded on GitHub, replayed offline from its artifact', () => {
  it('the step uploads the recording as an artifact; replay fetches it and reproduces the tool calls', async () => {
    const r = await recordedAsRoot();
    const kept = github!.state.artifacts.records.find((a) => a.name === r.ref.artifact!.name)!;
    expect(kept.finalized).toBe(true);
    expect(kept.id).toBe(r.ref.artifact!.id);
    // The artifact holds the recording at the journal's path, its hash the journal's, no key in it.
    const text = unzipFile(kept.body!, r.ref.path, 1e8)!;
    expect(createHash('sha256').update(text).digest('hex')).toBe(r.ref.sha256);
    expect(text.toString('utf8').trim().split('\n')).toHaveLength(r.ref.calls);
    expect(text.toString('utf8')).not.toContain('REALKEY');
    await replayedFromArtifact(r);
    // Found through the REST API: the run's artifacts listed, the archive downloaded (a redirect to the blob).
    const kinds = github!.requests.countByKind();
    expect(kinds['GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts']).toBe(1);
    expect(kinds['GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}']).toBe(1);
    expect(kinds['POST /twirp/github.actions.results.api.v1.ArtifactService/CreateArtifact']).toBe(1);
    expect(kinds['POST /twirp/github.actions.results.api.v1.ArtifactService/FinalizeArtifact']).toBe(1);
  }, 600_000);

  it('an artifact changed after the run is refused, and nothing is written', async () => {
    const r = await recordedAsRoot();
    const kept = github!.state.artifacts.records.find((a) => a.name === r.ref.artifact!.name)!;
    const original = kept.body!;
    const sb = freshDirectory(r);
    // A well-formed archive whose recording says something else.
    const text = unzipFile(original, r.ref.path, 1e8)!.toString('utf8');
    kept.body = zipFiles([{ name: r.ref.path, data: Buffer.from(text.replace('Call 1.', 'Call 9.')) }]);
    try {
      const out = await sb.start(['replay', r.run, 'work'], personEnv(sb, r.model)).exited;
      expect(out.code, out.stderr.slice(-3000)).toBe(2);
      expect(out.stderr).toMatch(
        /the recording \S+ in the artifact "[^"]+" of workflow run \d+ of acme\/widgets is not the one the journal recorded \(its SHA-256 is [0-9a-f]{64}/,
      );
      expect(sb.exists(r.ref.path)).toBe(false);
      expect(sb.exists('.interlock/replays')).toBe(false);
      expect(sb.read(`.interlock/runs/${r.run}.json`)).toBe(r.journal);
    } finally {
      kept.body = original;
    }
  }, 600_000);

  it('a download GitHub keeps failing is said in one line and writes nothing; once it answers, the replay runs', async () => {
    const r = await recordedAsRoot();
    // The two requests of the person's side (the fault suite's flows are the Action's and the App's: these two
    // are faulted here, api-faults-coverage.ts FAULTED_ELSEWHERE).
    for (const [kind, path] of [
      ['GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts', /\/actions\/runs\/\d+\/artifacts$/],
      [
        'GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}',
        /\/actions\/artifacts\/\d+\/zip$/,
      ],
    ] as const) {
      const fault = github!.faults.inject({
        method: 'GET',
        path,
        every: true,
        fault: { kind: 'status', status: 502 },
      });
      const sb = freshDirectory(r);
      try {
        const out = await sb.start(['replay', r.run, 'work'], personEnv(sb, r.model)).exited;
        expect([kind, out.code], out.stderr.slice(-3000)).toEqual([kind, 2]);
        expect(out.stderr).toMatch(
          /the artifact "[^"]+" of workflow run \d+ of acme\/widgets could not be downloaded \(.*\); nothing was replayed/,
        );
        expect(fault.fired).toBeGreaterThan(0);
        expect(sb.exists(r.ref.path)).toBe(false);
        expect(sb.exists('.interlock/replays')).toBe(false);
        expect(sb.read(`.interlock/runs/${r.run}.json`)).toBe(r.journal);
      } finally {
        fault.remove();
      }
    }
    await replayedFromArtifact(r);
  }, 600_000);

  it.skipIf(!!noSudoRunner())(
    'the same through passwordless sudo (a hosted runner)',
    async () => {
      const r = await recordedOnGitHub(ISSUE + 1, sudoRunner());
      await replayedFromArtifact(r);
    },
    600_000,
  );
  it("recording-retention-days sets the artifact's expiry, at most the repository's retention", async () => {
    const r = await recordedOnGitHub(ISSUE + 2, undefined, {
      inputs: { 'recording-retention-days': '5' },
      env: { GITHUB_RETENTION_DAYS: '3' },
    });
    const kept = github!.state.artifacts.records.find((a) => a.name === r.ref.artifact!.name)!;
    const days = (Date.parse(kept.expires_at) - Date.parse(kept.created_at)) / 86_400_000;
    expect(days).toBeGreaterThan(2.9);
    expect(days).toBeLessThanOrEqual(3);
  }, 600_000);

  it('recording: none keeps no recording and uploads no artifact; the attempt is still metered', async () => {
    const before = github?.state.artifacts.records.length ?? 0;
    const r = await recordedOnGitHub(ISSUE + 3, undefined, { inputs: { recording: 'none' } });
    expect(r.ref).toBeUndefined();
    expect(r.journal).toContain('"metered"');
    expect(github!.state.artifacts.records).toHaveLength(before);
  }, 600_000);
  it('an upload the service keeps refusing is a warning: the attempt completes, its recording names no artifact', async () => {
    const r = await recordedOnGitHub(ISSUE + 4, undefined, {
      fault: {
        method: 'POST',
        path: /\/FinalizeArtifact$/,
        every: true,
        fault: { kind: 'status', status: 500 },
      },
    });
    // Tried three times (a server error may pass), then said in the attempt's log.
    expect(github!.requests.filter({ path: /\/FinalizeArtifact$/, status: 500 })).toHaveLength(3);
    expect(r.log).toMatch(
      /"work" attempt 1's model exchange could not be kept as an artifact \(FinalizeArtifact answered 500/,
    );
    expect(r.ref.sha256).toMatch(/^[0-9a-f]{64}$/);
    expect(r.ref.artifact).toBeUndefined();
  }, 600_000);
});
