/**
 * Check runs: create, update, get, and list for a ref. `output.summary` and `output.text` are
 * limited as GitHub limits them: 65535 characters (and as many bytes).
 */
import { HttpError, invalidRequest, notFound, unprocessable, validationFailed } from '../http-error.js';
import type { CheckConclusion, CheckRunRecord, CheckStatus } from '../records.js';
import { checkRun } from '../render/checks.js';
import type { RepoState } from '../repo-state.js';
import { type RouteDef, route } from '../router.js';

/** GitHub's limit on `output.summary` and `output.text`. */
export const CHECK_OUTPUT_LIMIT = 65535;

const CONCLUSIONS: readonly CheckConclusion[] = [
  'action_required',
  'cancelled',
  'failure',
  'neutral',
  'success',
  'skipped',
  'timed_out',
];
const STATUSES: readonly CheckStatus[] = [
  'queued',
  'in_progress',
  'completed',
  'waiting',
  'requested',
  'pending',
];

function checkText(field: 'summary' | 'text' | 'title', value: unknown): string | null {
  if (value === undefined || value === null) return null;
  if (typeof value !== 'string') throw invalidRequest(`"${field}" must be a string.`);
  if (field === 'title') return value;
  const characters = [...value].length;
  if (characters > CHECK_OUTPUT_LIMIT) {
    throw invalidRequest(`Only ${CHECK_OUTPUT_LIMIT} characters are allowed; ${characters} were supplied.`);
  }
  if (Buffer.byteLength(value, 'utf8') > CHECK_OUTPUT_LIMIT) {
    throw validationFailed({
      resource: 'CheckRun',
      code: 'custom',
      field,
      message: `${field} exceeds a maximum bytesize of ${CHECK_OUTPUT_LIMIT}`,
    });
  }
  return value;
}

interface CheckInput {
  name?: unknown;
  details_url?: unknown;
  external_id?: unknown;
  status?: unknown;
  conclusion?: unknown;
  started_at?: unknown;
  completed_at?: unknown;
  output?: unknown;
  actions?: unknown;
}

function checkActions(value: unknown): CheckRunRecord['actions'] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length > 3) {
    throw validationFailed({ resource: 'CheckRun', code: 'invalid', field: 'actions' });
  }
  return value.map((item: { label?: unknown; description?: unknown; identifier?: unknown }) => {
    const { label, description, identifier } = item;
    if (typeof label !== 'string' || label.length > 20) {
      throw validationFailed({ resource: 'CheckRun', code: 'invalid', field: 'actions.label' });
    }
    if (typeof description !== 'string' || description.length > 40) {
      throw validationFailed({ resource: 'CheckRun', code: 'invalid', field: 'actions.description' });
    }
    if (typeof identifier !== 'string' || identifier.length > 20) {
      throw validationFailed({ resource: 'CheckRun', code: 'invalid', field: 'actions.identifier' });
    }
    return { label, description, identifier };
  });
}

/** Validates a create or update body and applies it to `record`. */
function apply(repo: RepoState, record: CheckRunRecord, input: CheckInput, creating: boolean): void {
  const now = repo.env.now();
  if (input.name !== undefined) {
    if (typeof input.name !== 'string' || input.name === '') throw invalidRequest('"name" wasn\'t supplied.');
    record.name = input.name;
  }
  if (typeof input.details_url === 'string') record.details_url = input.details_url;
  if (typeof input.external_id === 'string') record.external_id = input.external_id;
  if (typeof input.started_at === 'string') record.started_at = input.started_at;

  if (input.conclusion !== undefined && input.conclusion !== null) {
    if (input.conclusion === 'stale')
      throw unprocessable('Only GitHub can set a check run conclusion to stale');
    if (!CONCLUSIONS.includes(input.conclusion as CheckConclusion)) {
      throw validationFailed({ resource: 'CheckRun', code: 'invalid', field: 'conclusion' });
    }
    record.conclusion = input.conclusion as CheckConclusion;
    record.status = 'completed';
    record.completed_at =
      typeof input.completed_at === 'string' ? input.completed_at : (record.completed_at ?? now);
  } else if (input.status !== undefined) {
    const allowed = creating ? STATUSES.slice(0, 3) : STATUSES;
    if (!allowed.includes(input.status as CheckStatus)) {
      throw validationFailed({ resource: 'CheckRun', code: 'invalid', field: 'status' });
    }
    if (input.status === 'completed' && record.conclusion === null) {
      throw invalidRequest('"conclusion" wasn\'t supplied.');
    }
    record.status = input.status as CheckStatus;
    if (record.status !== 'completed') {
      record.conclusion = null;
      record.completed_at = null;
    }
  }

  if (input.output !== undefined) {
    const output = input.output as {
      title?: unknown;
      summary?: unknown;
      text?: unknown;
      annotations?: unknown;
    };
    if (typeof output !== 'object' || output === null) throw invalidRequest('"output" must be an object.');
    if (creating && (typeof output.title !== 'string' || typeof output.summary !== 'string')) {
      throw invalidRequest('"title" and "summary" are required in "output".');
    }
    if (typeof output.summary !== 'string') throw invalidRequest('"summary" wasn\'t supplied in "output".');
    const title = checkText('title', output.title);
    const summary = checkText('summary', output.summary);
    const text = checkText('text', output.text);
    const annotations = Array.isArray(output.annotations) ? output.annotations.length : 0;
    if (annotations > 50)
      throw validationFailed({ resource: 'CheckRun', code: 'invalid', field: 'annotations' });
    record.output = {
      title: title ?? record.output.title,
      summary,
      text: text ?? (output.text === undefined ? record.output.text : null),
      annotations_count: record.output.annotations_count + annotations,
    };
  }
  const actions = checkActions(input.actions);
  if (actions) record.actions = actions;
}

function findRun(repo: RepoState, id: string): CheckRunRecord {
  const found = repo.checkRuns.get(Number(id));
  if (!found) throw notFound();
  return found;
}

export const checkRoutes: RouteDef[] = [
  route('post', '/repos/{owner}/{repo}/check-runs', (ctx) => {
    const repo = ctx.repo();
    if (!ctx.actor.app) throw new HttpError(403, 'You must authenticate via a GitHub App.');
    const { name, head_sha: headSha } = ctx.body;
    if (typeof name !== 'string' || name === '') throw invalidRequest('"name" wasn\'t supplied.');
    if (typeof headSha !== 'string' || headSha === '') throw invalidRequest('"head_sha" wasn\'t supplied.');
    if (!repo.git.commit(headSha)) throw unprocessable(`No commit found for SHA: ${headSha}`);
    const id = repo.env.nextId();
    const record: CheckRunRecord = {
      id,
      node_id: `CR_${Buffer.from(`0:${id}`).toString('base64url')}`,
      head_sha: headSha,
      name,
      status: 'queued',
      conclusion: null,
      started_at: repo.env.now(),
      completed_at: null,
      external_id: null,
      details_url: null,
      output: { title: null, summary: null, text: null, annotations_count: 0 },
      actions: [],
      app: ctx.actor.app.slug,
      check_suite_id: repo.checkSuiteFor(headSha, ctx.actor.app.slug),
    };
    apply(repo, record, ctx.body, true);
    repo.checkRuns.set(id, record);
    return ctx.reply(201, checkRun(repo, ctx.urls, record));
  }),

  route('patch', '/repos/{owner}/{repo}/check-runs/{check_run_id}', (ctx) => {
    const repo = ctx.repo();
    const record = findRun(repo, ctx.params.check_run_id);
    if (!ctx.actor.app) throw new HttpError(403, 'You must authenticate via a GitHub App.');
    // Validate on a copy, so a refused update changes nothing.
    const draft: CheckRunRecord = { ...record, output: { ...record.output }, actions: [...record.actions] };
    apply(repo, draft, ctx.body, false);
    Object.assign(record, draft);
    return ctx.reply(200, checkRun(repo, ctx.urls, record));
  }),

  route('get', '/repos/{owner}/{repo}/check-runs/{check_run_id}', (ctx) => {
    const repo = ctx.repo();
    return ctx.reply(200, checkRun(repo, ctx.urls, findRun(repo, ctx.params.check_run_id)));
  }),

  route('get', '/repos/{owner}/{repo}/commits/{ref}/check-runs', (ctx) => {
    const repo = ctx.repo();
    const sha = repo.resolveCommit(ctx.params.ref);
    if (!sha) throw unprocessable(`No commit found for SHA: ${ctx.params.ref}`);
    const name = ctx.query.get('check_name');
    const status = ctx.query.get('status');
    const appId = ctx.query.get('app_id');
    let runs = [...repo.checkRuns.values()].filter((run) => run.head_sha === sha).sort((a, b) => b.id - a.id);
    if (ctx.query.get('filter') !== 'all') {
      const seen = new Set<string>();
      runs = runs.filter((run) => {
        const key = `${run.app}\u0000${run.name}`;
        if (seen.has(key)) return false;
        seen.add(key);
        return true;
      });
    }
    runs = runs.filter(
      (run) =>
        (name === null || run.name === name) &&
        (status === null || run.status === status) &&
        (appId === null || String(run.app === repo.env.app.slug ? repo.env.app.id : 15368) === appId),
    );
    const { items, headers } = ctx.page(runs);
    return ctx.reply(
      200,
      { total_count: runs.length, check_runs: items.map((run) => checkRun(repo, ctx.urls, run)) },
      headers,
    );
  }),
];
