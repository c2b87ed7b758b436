/**
 * The maintainers' page over the App's repositories: the repositories are those the person's own token can see
 * (`GET /user/installations`, `GET /user/installations/{id}/repositories`); runs are read with the installation's
 * token (conditional reads, a short cache: a reload within its life costs no request); who may act is decided by
 * the comment command's rules (permission or listing, then the node's policy), and an action goes through the
 * comment command's path (`handlePageAction`).
 */
import { configLoader } from '../../config/load.js';
import type { GitHubClient, RepoRef } from '../../github/client.js';
import { defaultBranchReader } from '../../github/repo-text.js';
import { nodeById } from '../../graph/model.js';
import type { ReadFloor } from '../../journal/freshness.js';
import { commandTerms, effectivePolicy } from '../../protocol/policy.js';
import type { PageRun, WaitingRow } from '../../render/page/waiting-model.js';
import type { MayAct } from '../../render/page/waiting-page.js';
import { authorize } from '../authorization/authorize.js';
import { checkNodePolicy } from '../authorization/node-policy.js';
import { gatherAuthFacts } from '../authorization/permission.js';
import type { HandlerDeps, Outcome } from '../deps.js';
import { loadRun, stateOf } from '../lookup/load-run.js';
import { handlePageAction } from '../page-action.js';
import type { PageBackend, PageForm, Seen, Viewer } from './backend.js';
import { type ConditionalCache, TtlCache } from './conditional.js';
import { type RepoRuns, readRepoRuns } from './repo-runs.js';

/** A logged-in person as the App keeps them: their login and their user access token. */
interface GitHubSession {
  login: string;
  token: string;
}

interface GitHubBackendOptions {
  webUrl: string;
  journalBranch: string;
  /** An Octokit acting as the person (their user access token). */
  userClient(token: string): GitHubClient;
  /** An Octokit acting as the App's installation. */
  installationClient(id: number): Promise<GitHubClient>;
  conditional: ConditionalCache;
  /** How long a read is kept before it is asked again (conditionally); default 30 s. */
  ttlMs?: number;
  clock?: () => number;
  /** The App's `HandlerDeps.dispatchLeaseMs`, for the approvals given on the page. */
  dispatchLeaseMs?: number;
}

interface SeenRepo {
  name: string;
  installation: number;
  defaultBranch: string;
}

const sessionOf = (v: Viewer): GitHubSession => {
  const s = v.session as GitHubSession | undefined;
  if (!s?.token || !v.login) throw new Error('no session: log in again');
  return s;
};

const refOf = (name: string): RepoRef => {
  const [owner, repo] = name.split('/') as [string, string];
  return { owner, repo };
};

const PER_PAGE = 100;

/** Runs the page acted on whose floor it keeps (the oldest forgotten first). */
const MAX_FLOORS = 1_000;

/**
 * Every page of a list, read by number. Not `paginate`: it takes a 409 for an empty list, and the person would be
 * shown no repository at all instead of an error.
 */
async function allPages<T>(read: (page: number) => Promise<T[]>): Promise<T[]> {
  const out: T[] = [];
  for (let page = 1; ; page++) {
    const items = await read(page);
    out.push(...items);
    if (items.length < PER_PAGE) return out;
  }
}

/** The page's data for the App: the person's repositories and their runs, who may act, and the actions. */
export class GitHubBackend implements PageBackend {
  readonly webUrl: string;
  readonly #repos: TtlCache<SeenRepo[]>;
  readonly #runs: TtlCache<RepoRuns>;
  readonly #rights: TtlCache<MayAct & { readOnly?: boolean }>;
  /** By repository, then run id: what the page knows a run holds since it acted on it (one event more). */
  readonly #floors = new Map<string, Map<string, ReadFloor>>();

  constructor(private readonly o: GitHubBackendOptions) {
    const ttl = o.ttlMs ?? 30_000;
    this.webUrl = o.webUrl;
    this.#repos = new TtlCache(ttl, o.clock);
    this.#runs = new TtlCache(ttl, o.clock);
    this.#rights = new TtlCache(ttl, o.clock);
  }

  /** The repositories the person's own token can see, in the App's installations. */
  #reposOf(v: Viewer): Promise<SeenRepo[]> {
    const s = sessionOf(v);
    return this.#repos.get(s.login.toLowerCase(), async () => {
      const user = this.o.conditional.attach(this.o.userClient(s.token), `user:${s.login}`);
      const installs = await allPages(
        async (page) =>
          (await user.rest.apps.listInstallationsForAuthenticatedUser({ per_page: PER_PAGE, page })).data
            .installations,
      );
      const out: SeenRepo[] = [];
      for (const i of installs) {
        const list = await allPages(
          async (page) =>
            (
              await user.rest.apps.listInstallationReposForAuthenticatedUser({
                installation_id: i.id,
                per_page: PER_PAGE,
                page,
              })
            ).data.repositories,
        );
        for (const r of list)
          out.push({ name: r.full_name, installation: i.id, defaultBranch: r.default_branch });
      }
      return out.sort((a, b) => a.name.localeCompare(b.name));
    });
  }

  async #deps(repo: SeenRepo): Promise<HandlerDeps> {
    const client = await this.o.installationClient(repo.installation);
    const octokit = this.o.conditional.attach(client, `installation:${repo.installation}`);
    return {
      octokit,
      repo: refOf(repo.name),
      // Read once per read of the repository's runs (the page keeps that for its cache's time).
      config: configLoader(defaultBranchReader(octokit, refOf(repo.name))),
      journalBranch: this.o.journalBranch,
      webUrl: this.o.webUrl,
      checkRuns: true,
      dispatchLeaseMs: this.o.dispatchLeaseMs,
    };
  }

  #runsOf(repo: SeenRepo): Promise<RepoRuns> {
    return this.#runs.get(repo.name, async () =>
      readRepoRuns(await this.#deps(repo), this.#floors.get(repo.name)),
    );
  }

  async #find(v: Viewer, name: string): Promise<SeenRepo | undefined> {
    return (await this.#reposOf(v)).find((r) => r.name === name);
  }

  /** May the person give commands in the repository at all (the comment command's first check)? */
  #repoRight(v: Viewer, repo: SeenRepo): Promise<MayAct & { readOnly?: boolean }> {
    const login = v.login!;
    return this.#rights.get(`${login.toLowerCase()} ${repo.name}`, async () => {
      const deps = await this.#deps(repo);
      const { approvals } = (await this.#runsOf(repo)).config;
      const auth = authorize(approvals, 'command', await gatherAuthFacts(deps, approvals, 'command', login));
      return auth.ok ? { ok: true } : { ok: false, reason: auth.reason, readOnly: true };
    });
  }

  /** The node's own policy (graph and node levels) and self-approval, for one row. */
  async #rowRight(v: Viewer, repo: SeenRepo, row: WaitingRow): Promise<MayAct> {
    const login = v.login!;
    const { runs, config } = await this.#runsOf(repo);
    const run = runs.find((r) => r.journal.run_id === row.runId);
    if (!run) return { ok: true };
    const node = nodeById(run.graph, row.node);
    // A row's forms are approvals: their terms are the comment's and the CLI's (commandTerms).
    const terms = commandTerms('approve', config.approvals, node);
    if (terms.preventSelfApproval && row.startedBy?.toLowerCase() === login.toLowerCase())
      return {
        ok: false,
        reason: `@${login} started this run and cannot approve it (prevent_self_approval)`,
      };
    if (!effectivePolicy(config.approvals, node).levels.some((l) => l.where !== 'repository'))
      return { ok: true };
    return this.#rights.get(`${login.toLowerCase()} ${repo.name} ${row.node}`, async () => {
      const deps = await this.#deps(repo);
      const r = await checkNodePolicy(deps, { config, graph: run.graph, node: row.node, login });
      return r.ok ? { ok: true } : { ok: false, reason: r.reason };
    });
  }

  async see(v: Viewer): Promise<Seen> {
    const list = await this.#reposOf(v);
    const seen: Seen = { repos: list.map((r) => r.name), runs: [], problems: [] };
    const read = await Promise.all(list.map((r) => this.#runsOf(r).catch((e: unknown) => e as Error)));
    read.forEach((r, i) => {
      if (r instanceof Error) seen.problems.push({ repo: list[i]!.name, why: r.message });
      else {
        seen.runs.push(...r.runs);
        seen.problems.push(...r.problems.map((why) => ({ repo: r.repo, why })));
      }
    });
    return seen;
  }

  async run(v: Viewer, name: string, runId: string): Promise<PageRun | undefined> {
    const repo = await this.#find(v, name);
    if (!repo) return undefined;
    const kept = (await this.#runsOf(repo)).runs.find((r) => r.journal.run_id === runId);
    if (kept) return kept;
    const loaded = await loadRun(await this.#deps(repo), runId);
    if (!loaded.ok) return undefined;
    const state = stateOf(loaded.run);
    if (!state.ok) return undefined;
    return { repo: name, journal: loaded.run.journal, graph: loaded.run.graph, state: state.state };
  }

  async mayAct(v: Viewer, rows: WaitingRow[]): Promise<(row: WaitingRow) => MayAct & { readOnly?: boolean }> {
    const list = await this.#reposOf(v);
    const answers = new Map<WaitingRow, MayAct & { readOnly?: boolean }>();
    for (const row of rows) {
      const repo = list.find((r) => r.name === row.repo);
      if (!repo) {
        answers.set(row, { ok: false, reason: `you cannot see ${row.repo}`, readOnly: true });
        continue;
      }
      const right = await this.#repoRight(v, repo);
      answers.set(row, right.ok ? await this.#rowRight(v, repo, row) : right);
    }
    return (row) => answers.get(row) ?? { ok: false, reason: 'unknown row', readOnly: true };
  }

  async act(v: Viewer, form: PageForm, source: string): Promise<Outcome> {
    const repo = await this.#find(v, form.repo);
    if (!repo) return { kind: 'refused', why: `you cannot see ${form.repo}` };
    const { repo: _repo, formId: _id, ...bound } = form;
    const before = (await this.#runsOf(repo)).runs.find((r) => r.journal.run_id === form.runId);
    const outcome = await handlePageAction(await this.#deps(repo), {
      ...bound,
      login: sessionOf(v).login,
      source,
      defaultBranch: repo.defaultBranch,
    });
    // Done: the journal holds at least one event more than the page saw; a read that lacks it is from the past.
    if (outcome.kind === 'done' && before)
      this.#keepFloor(repo.name, form.runId, before.journal.events.length + 1);
    return outcome;
  }

  #keepFloor(repo: string, runId: string, seq: number): void {
    const runs = this.#floors.get(repo) ?? new Map<string, ReadFloor>();
    this.#floors.set(repo, runs);
    runs.delete(runId);
    runs.set(runId, { seq });
    if (runs.size > MAX_FLOORS) runs.delete(runs.keys().next().value!);
  }

  forget(repo: string): void {
    this.#runs.forget(repo);
  }
}
