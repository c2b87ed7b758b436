// An attempt recorded on GitHub, replayed on a person's machine (issue 48): the bundled action runs the real Claude
// Code as a node against the scripted model server, as root under the default isolation, with the local GitHub's
// results service as the runner's artifact service. The key proxy records the attempt and the step uploads the
// recording as a workflow artifact (CreateArtifact, the blob, FinalizeArtifact); the journal names the artifact and
// the recording's SHA-256. Then `interlock replay`, in a fresh directory holding only the graph and the journal,
// finds the artifact through the REST API, downloads it, checks the hash and replays the attempt with no key: the
// same tool calls, and the model server gets no request. An artifact changed after the run is refused (exit 2),
// nothing is written and the journal stays byte for byte.
import { createHash } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
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
import { type GitHubServer, startGitHubServer } from '../support/github-server.js';
import { type ModelServer, type ScriptedTurn, startModelServer } from '../support/model-server.js';

const MODEL = 'claude-sonnet-4-5-20250929';
const GRAPH_FILE = '.github/interlock/replayed.yml';
const ISSUE = 12;
const RUN = `replayed/issue-${ISSUE}`;
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

let github: GitHubServer;
let model: ModelServer;
let journal: string;
let ref: Ref;
const sandboxes: Sandbox[] = [];
beforeAll(requireBundle);
afterAll(async () => {
  for (const sb of sandboxes) await sb.cleanup();
  await github?.close();
  await model?.close();
});

/** The run: one Claude Code attempt through the bundled action, its recording kept as an artifact. */
async function recordedOnGitHub(): Promise<void> {
  if (journal) return;
  github = await startGitHubServer({ repos: [{ owner: OWNER, name: REPO }] });
  model = await startModelServer({ script: [bash(1), bash(2), { text: 'Done.' }] });
  const ws = makeWorkspace({
    '.github/interlock.yml': routeLabel('agent:r', GRAPH_FILE),
    [GRAPH_FILE]: graph,
  });
  const repo = github.state.repo(FULL);
  repo.addIssue({ number: ISSUE, title: 'replayed', labels: ['agent:r'] });
  const step = issueStep(github, ws, ISSUE, 'agent:r');
  step.env = {
    ANTHROPIC_BASE_URL: model.url,
    ANTHROPIC_API_KEY: 'sk-ant-REALKEY-artifact',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    ACTIONS_RESULTS_URL: `${github.url}/`,
    ACTIONS_RUNTIME_TOKEN: github.state.artifacts.runtimeToken(repo, step.job.runId),
  };
  const result = await runStep(step);
  expect(result.outputs.status, result.log.slice(-3000)).toBe('completed');
  const recorded = eventsOf(readJournal(github, RUN), 'NodeRecorded', 'work')[0]!;
  ref = (recorded.usage as { metered?: { recording?: Ref } }).metered!.recording!;
  journal = journalText(github, RUN)!;
  expect(ref.artifact, result.log.slice(-3000)).toMatchObject({
    repository: FULL,
    workflow_run_id: step.job.runId,
    name: `interlock-recording~replayed~issue-${ISSUE}~work~1`,
  });
  expect(ref.path).toBe(`.interlock/runs/${RUN}.logs/work-1.model.jsonl`);
  expect(ref.workspace).toBe(ws);
}

/** A person's fresh directory: the graph and the run's journal (fetched from its branch), nothing else. */
function freshDirectory(): Sandbox {
  const sb = new Sandbox('interlock-replay-artifact-');
  sandboxes.push(sb);
  for (const [path, text] of [
    ['.github/interlock.yml', routeLabel('agent:r', GRAPH_FILE)],
    [GRAPH_FILE, graph],
    [`.interlock/runs/${RUN}.json`, journal],
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
const personEnv = (sb: Sandbox) => ({
  SHELL: '',
  GH_TOKEN: 'ghp_person',
  GITHUB_API_URL: github.url,
  ANTHROPIC_BASE_URL: model.url,
  CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
  DISABLE_AUTOUPDATER: '1',
  DISABLE_TELEMETRY: '1',
  DISABLE_ERROR_REPORTING: '1',
  CLAUDE_CONFIG_DIR: sb.path('claude'),
  HOME: sb.path('claude'),
});

describe.skipIf(!!why)('an attempt recorded on GitHub, replayed offline from its artifact', () => {
  it('the step uploads the recording as an artifact; replay fetches it and reproduces the tool calls', async () => {
    await recordedOnGitHub();
    const kept = github.state.artifacts.records.find((a) => a.name === ref.artifact!.name)!;
    expect(kept.finalized).toBe(true);
    expect(kept.id).toBe(ref.artifact!.id);
    // The artifact holds the recording at the journal's path, its hash the journal's, no key in it.
    const text = unzipFile(kept.body!, ref.path, 1e8)!;
    expect(createHash('sha256').update(text).digest('hex')).toBe(ref.sha256);
    expect(text.toString('utf8').trim().split('\n')).toHaveLength(ref.calls);
    expect(text.toString('utf8')).not.toContain('REALKEY');
    const served = model.requests.length;
    const sb = freshDirectory();
    const r = await sb.start(['replay', RUN, 'work'], personEnv(sb)).exited;
    expect(r.code, r.stderr.slice(-3000)).toBe(0);
    expect(r.stderr).toContain(`downloaded ${ref.path} from the artifact "${ref.artifact!.name}"`);
    expect(r.stderr).toContain(`reproduced: its ${ref.calls} model calls were answered from the recording`);
    expect(model.requests).toHaveLength(served);
    // Found through the REST API: the run's artifacts listed, the archive downloaded (a redirect to the blob).
    const kinds = github.requests.countByKind();
    expect(kinds['GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts']).toBe(1);
    expect(kinds['GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}']).toBe(1);
    expect(kinds['POST /twirp/github.actions.results.api.v1.ArtifactService/CreateArtifact']).toBe(1);
    expect(kinds['POST /twirp/github.actions.results.api.v1.ArtifactService/FinalizeArtifact']).toBe(1);
    // The downloaded recording is the journal's, kept where the journal says; the journal is untouched.
    const replays = readdirSync(sb.path(`.interlock/replays/${RUN}`));
    expect(replays).toHaveLength(1);
    const summary = JSON.parse(sb.read(`.interlock/replays/${RUN}/${replays[0]}/replay.json`)!) as {
      answered: number[];
      workspace: string;
    };
    expect(summary.answered).toHaveLength(ref.calls);
    // The recorded tool calls ran again, for real, in the replay's copy of the fresh directory.
    expect(readFileSync(join(summary.workspace, 'calls.txt'), 'utf8')).toBe('1\n2\n');
    expect(sb.read(`.interlock/runs/${RUN}.json`)).toBe(journal);
  }, 600_000);

  it('an artifact changed after the run is refused, and nothing is written', async () => {
    await recordedOnGitHub();
    const kept = github.state.artifacts.records.find((a) => a.name === ref.artifact!.name)!;
    const original = kept.body!;
    const sb = freshDirectory();
    // A well-formed archive whose recording says something else.
    const text = unzipFile(original, ref.path, 1e8)!.toString('utf8');
    kept.body = zipFiles([{ name: ref.path, data: Buffer.from(text.replace('Call 1.', 'Call 9.')) }]);
    try {
      const r = await sb.start(['replay', RUN, 'work'], personEnv(sb)).exited;
      expect(r.code, r.stderr.slice(-3000)).toBe(2);
      expect(r.stderr).toMatch(
        /the recording \S+ in the artifact "[^"]+" of workflow run \d+ of acme\/widgets is not the one the journal recorded \(its SHA-256 is [0-9a-f]{64}/,
      );
      expect(sb.exists(ref.path)).toBe(false);
      expect(sb.exists(`.interlock/replays`)).toBe(false);
      expect(sb.read(`.interlock/runs/${RUN}.json`)).toBe(journal);
    } finally {
      kept.body = original;
    }
  }, 600_000);
});
