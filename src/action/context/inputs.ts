import * as z from 'zod';
import { GITHUB_CREDENTIALS, parseNodeCredentials } from '../../os/node-user/node-credentials.js';
import { DEFAULT_AGENT_CREDENTIALS } from '../../os/proxies/key-proxy-rules.js';

/** The action's inputs, as action.yml declares them. Read once, parsed once. */
const InputsSchema = z.object({
  graph: z.string().default(''),
  node: z.string().default('next'),
  'run-id': z.string().default(''),
  store: z.enum(['git', 'check-run']).default('git'),
  'journal-branch': z.string().min(1).default('interlock-journal'),
  token: z
    .string()
    .min(1, 'the token input is empty: pass token: ${{ github.token }} (the default) or a token secret'),
  mode: z.enum(['step', 'plan', 'recover', 'stuck', 'comment']).default('step'),
  'on-held': z.enum(['fail', 'succeed']).default('fail'),
  'stuck-after': z.string().default('24h'),
  'allow-graph-change': z.enum(['true', 'false']).default('false'),
  isolation: z.enum(['auto', 'user', 'none']).default('auto'),
  'node-user': z.string().default('interlock-node'),
  'node-credentials': z.string().default(''),
  'agent-credentials': z.string().default(DEFAULT_AGENT_CREDENTIALS),
  dispatch: z.enum(['none', 'ready']).default('none'),
  recording: z.enum(['artifact', 'none']).default('artifact'),
  'recording-retention-days': z.coerce
    .number()
    .int()
    .min(
      1,
      "recording-retention-days must be a number of days from 1 to 400, or empty for the repository's retention",
    )
    .max(
      400,
      "recording-retention-days must be a number of days from 1 to 400, or empty for the repository's retention",
    )
    .optional(),
  'journal-sha': z
    .string()
    .regex(
      /^[0-9a-f]{40}$/,
      'journal-sha must be a 40-character commit sha: pass ${{ needs.plan.outputs.journal-sha }} from the plan job',
    )
    .optional(),
});
export type Inputs = z.infer<typeof InputsSchema>;
type InputName = keyof Inputs;
const INPUT_NAMES = Object.keys(InputsSchema.shape) as InputName[];

/** Inputs whose empty value is a value: `agent-credentials: ''` turns the key proxy off. */
const EMPTY_IS_A_VALUE = new Set<InputName>(['agent-credentials']);

/** Reads `INPUT_<NAME>` as the runner sets them (upper case, spaces to underscores); empty means default. */
export function readInputs(env: NodeJS.ProcessEnv): Inputs {
  const raw: Partial<Record<InputName, string>> = {};
  for (const name of INPUT_NAMES) {
    const v = env[`INPUT_${name.replace(/ /g, '_').toUpperCase()}`]?.trim();
    if (v || (v !== undefined && EMPTY_IS_A_VALUE.has(name))) raw[name] = v;
  }
  const r = InputsSchema.safeParse(raw);
  if (!r.success) throw new Error(`bad action input: ${z.prettifyError(r.error)}`);
  return r.data;
}

/** The runner's environment that the action reads. */
const ActionEnvSchema = z.object({
  GITHUB_REPOSITORY: z.string().regex(/^[^/]+\/[^/]+$/),
  GITHUB_API_URL: z.string().url().default('https://api.github.com'),
  GITHUB_SERVER_URL: z.string().url().default('https://github.com'),
  GITHUB_EVENT_NAME: z.string().default('workflow_dispatch'),
  GITHUB_EVENT_PATH: z.string().optional(),
  GITHUB_WORKSPACE: z.string().optional(),
  /** The job's own temporary directory (only the runner's user writes it): the git guard keeps its copy there. */
  RUNNER_TEMP: z.string().optional(),
  GITHUB_RUN_ID: z.coerce.number().int().default(0),
  GITHUB_RUN_ATTEMPT: z.coerce.number().int().default(1),
  GITHUB_JOB: z.string().default('job'),
  GITHUB_REF: z.string().default(''),
  GITHUB_SHA: z.string().default(''),
  GITHUB_ACTOR: z.string().default(''),
  GITHUB_WORKFLOW_REF: z.string().default(''),
  RUNNER_NAME: z.string().default(''),
  /** The repository's artifact retention in days (a recording's retention is at most this); ignored unless a whole number. */
  GITHUB_RETENTION_DAYS: z.string().optional(),
});
export type ActionEnv = z.infer<typeof ActionEnvSchema>;

export function readActionEnv(env: NodeJS.ProcessEnv): ActionEnv {
  const r = ActionEnvSchema.safeParse(env);
  if (!r.success) throw new Error(`not running as a GitHub Actions step: ${z.prettifyError(r.error)}`);
  return r.data;
}

/** Runner files a node would write to forge the step's outputs, environment, path, state or summary. */
const RUNNER_FILES = new Set([
  'GITHUB_OUTPUT',
  'GITHUB_ENV',
  'GITHUB_PATH',
  'GITHUB_STATE',
  'GITHUB_STEP_SUMMARY',
]);

/**
 * The environment a node's command inherits: the step's own (where workflows put an agent's API key), without
 * the action's inputs (the token among them), the runner's internal tokens and files, and the GitHub tokens the
 * `node-credentials` input does not name.
 */
export function nodeEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const optIn = parseNodeCredentials(env['INPUT_NODE-CREDENTIALS'] ?? '');
  const credentials = new Set(GITHUB_CREDENTIALS);
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) {
    if (k.startsWith('INPUT_') || k.startsWith('ACTIONS_') || k.startsWith('STATE_')) continue;
    // A granted credential is passed on here; runScript withholds it from the nodes it was not granted to.
    if (RUNNER_FILES.has(k) || (credentials.has(k) && !optIn.has(k))) continue;
    out[k] = v;
  }
  return out;
}
