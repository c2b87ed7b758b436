/** Everything the server knows: users, organisations and teams, repositories, apps and tokens. */

import { Artifacts } from './artifacts.js';
import type { AppRecord, OrgRecord, TeamRecord, UserRecord } from './records.js';
import { RefClock } from './ref-history.js';
import { RepoState, type StateEnv } from './repo-state.js';
import type { AppSpec, RepoSpec, TeamSpec, UserSpec } from './specs.js';
import { Webhooks } from './webhooks.js';

/** The app GitHub Actions' own token belongs to (its real id and bot user id). */
export const ACTIONS_APP: AppRecord = {
  id: 15368,
  slug: 'github-actions',
  name: 'GitHub Actions',
  owner: 'github',
  installationId: 0,
  botLogin: 'github-actions[bot]',
};

const ACTIONS_BOT_ID = 41898282;

export interface StateOptions {
  users?: UserSpec[];
  orgs?: Record<string, Record<string, TeamSpec>>;
  repos?: RepoSpec[];
  app?: AppSpec;
  /** token to login; the token acts as that user. */
  tokens?: Record<string, string>;
  /** Clock for every timestamp the server writes. */
  now?: () => Date;
  /** How far back a read may be answered from (the like-GitHub model's `staleMs`); default 0. */
  refHorizonMs?: number;
}

const iso = (date: Date): string => date.toISOString().replace(/\.\d{3}Z$/, 'Z');

export class GitHubState implements StateEnv {
  readonly users = new Map<string, UserRecord>();
  readonly orgs = new Map<string, OrgRecord>();
  readonly repos = new Map<string, RepoState>();
  /** token to login, as given and as issued for app installations. */
  readonly tokens = new Map<string, string>();
  /** The App's webhook: where events are delivered, and every attempt. */
  readonly webhooks: Webhooks;
  /** User access tokens revoked (`DELETE /applications/{client_id}/token`): 401 from then on. */
  readonly revokedTokens = new Set<string>();
  /** Installation tokens the server has issued, to their app. */
  readonly installationTokens = new Map<string, AppRecord>();
  readonly app: AppRecord;
  readonly refClock: RefClock;
  /** Workflow artifacts: the results service's, the blob store's and the REST API's view (artifacts.ts). */
  readonly artifacts: Artifacts;
  readonly #clock: () => Date;
  #nextId = 1000;

  constructor(options: StateOptions = {}) {
    this.#clock = options.now ?? (() => new Date());
    const horizon = options.refHorizonMs ?? 0;
    this.refClock = new RefClock(() => horizon);
    this.webhooks = new Webhooks(this.#clock);
    this.artifacts = new Artifacts(this.#clock);
    const slug = options.app?.slug ?? 'interlock';
    this.app = {
      id: options.app?.id ?? 1,
      slug,
      name: options.app?.name ?? slug,
      owner: options.app?.owner ?? 'interlock-dev',
      installationId: options.app?.installationId ?? 1,
      botLogin: `${slug}[bot]`,
    };
    this.addUser({ login: ACTIONS_APP.botLogin, id: ACTIONS_BOT_ID, type: 'Bot' });
    this.addUser({ login: this.app.botLogin, type: 'Bot' });
    for (const user of options.users ?? []) this.addUser(user);
    for (const [org, teams] of Object.entries(options.orgs ?? {})) this.addOrg(org, teams);
    for (const [token, login] of Object.entries(options.tokens ?? {})) this.tokens.set(token, login);
    for (const repo of options.repos ?? []) this.addRepo(repo);
  }

  nextId(): number {
    return this.#nextId++;
  }

  now(): string {
    return iso(this.#clock());
  }

  /** A user by login, made (as a `User`, or a `Bot` for `x[bot]`) on first mention. */
  user(login: string): UserRecord {
    return this.users.get(login.toLowerCase()) ?? this.addUser({ login });
  }

  addUser(spec: UserSpec): UserRecord {
    const user: UserRecord = {
      login: spec.login,
      id: spec.id ?? this.nextId(),
      type: spec.type ?? (spec.login.endsWith('[bot]') ? 'Bot' : 'User'),
      name: spec.name ?? null,
      email: spec.email ?? null,
    };
    this.users.set(spec.login.toLowerCase(), user);
    return user;
  }

  addOrg(login: string, teams: Record<string, TeamSpec> = {}): OrgRecord {
    const org: OrgRecord = this.orgs.get(login.toLowerCase()) ?? { login, teams: new Map() };
    this.orgs.set(login.toLowerCase(), org);
    if (!this.users.has(login.toLowerCase())) this.addUser({ login, type: 'Organization' });
    for (const [slug, team] of Object.entries(teams)) {
      for (const [member, role] of Object.entries(team.members)) {
        const { role: teamRole, state } =
          typeof role === 'string' ? { role, state: 'active' as const } : role;
        this.setTeamMember(login, slug, member, teamRole, state);
      }
      if (Object.keys(team.members).length === 0) this.#team(org, slug, team.name);
    }
    return org;
  }

  /** Adds (or with `null` removes) a team member; the org and team are made when missing. */
  setTeamMember(
    orgLogin: string,
    slug: string,
    login: string,
    role: 'member' | 'maintainer' | null = 'member',
    state: 'active' | 'pending' = 'active',
  ): void {
    const org = this.orgs.get(orgLogin.toLowerCase()) ?? this.addOrg(orgLogin);
    const team = this.#team(org, slug);
    if (role === null) team.members.delete(login.toLowerCase());
    else team.members.set(login.toLowerCase(), { login: this.user(login).login, role, state });
  }

  addRepo(spec: RepoSpec): RepoState {
    const key = `${spec.owner}/${spec.name}`.toLowerCase();
    if (this.repos.has(key)) throw new Error(`repository ${spec.owner}/${spec.name} exists already`);
    const repo = new RepoState(
      this,
      spec.id ?? this.nextId(),
      this.user(spec.owner),
      spec.name,
      spec.defaultBranch ?? 'main',
      spec.private ?? false,
    );
    this.repos.set(key, repo);
    if (spec.actionsCanCreatePullRequests === false) repo.actionsCanCreatePullRequests = false;
    if (!spec.empty) {
      repo.commitFiles(repo.defaultBranch, spec.files ?? { 'README.md': `# ${spec.name}\n` }, {
        message: 'Initial commit',
      });
    }
    for (const [branch, files] of Object.entries(spec.branches ?? {})) {
      repo.createBranch(branch);
      if (Object.keys(files).length > 0)
        repo.commitFiles(branch, files, { message: `Add files to ${branch}` });
    }
    for (const tag of spec.tags ?? []) {
      const { name, target, message } =
        typeof tag === 'string' ? { name: tag, target: undefined, message: undefined } : tag;
      repo.createTag(name, target, message);
    }
    for (const [login, role] of Object.entries(spec.collaborators ?? {})) repo.setCollaborator(login, role);
    for (const label of spec.labels ?? []) {
      const { name, color, description } = typeof label === 'string' ? { name: label } : label;
      repo.ensureLabel(name, color, description ?? null);
    }
    for (const issue of spec.issues ?? []) repo.addIssue(issue);
    for (const pull of spec.pulls ?? []) repo.addPull(pull);
    for (const workflow of spec.workflows ?? []) repo.addWorkflow(workflow);
    for (const run of spec.workflowRuns ?? []) repo.addWorkflowRun(run);
    for (const check of spec.checkRuns ?? []) repo.addCheckRun(check);
    for (const release of spec.releases ?? []) repo.addRelease(release);
    return repo;
  }

  /** A repository by `owner/name`; throws when there is none (for tests' own use). */
  repo(fullName: string): RepoState {
    const repo = this.repos.get(fullName.toLowerCase());
    if (!repo) throw new Error(`no repository ${fullName} on the local GitHub`);
    return repo;
  }

  findRepo(owner: string, name: string): RepoState | undefined {
    return this.repos.get(`${owner}/${name}`.toLowerCase());
  }

  team(orgLogin: string, slug: string): TeamRecord | undefined {
    return this.orgs.get(orgLogin.toLowerCase())?.teams.get(slug.toLowerCase());
  }

  /** Issues an installation token for the app; it acts as the app's bot user. */
  issueInstallationToken(): { token: string; expires_at: string } {
    const token = `ghs_${this.nextId().toString(36).padStart(36, '0')}`;
    this.installationTokens.set(token, this.app);
    this.tokens.set(token, this.app.botLogin);
    return { token, expires_at: iso(new Date(this.#clock().getTime() + 3600_000)) };
  }

  #team(org: OrgRecord, slug: string, name?: string): TeamRecord {
    const key = slug.toLowerCase();
    let team = org.teams.get(key);
    if (!team) {
      team = { id: this.nextId(), slug: key, name: name ?? slug, members: new Map() };
      org.teams.set(key, team);
    }
    return team;
  }
}
