/**
 * The one home for run ids and subject labels: the run-id pattern and its validation, the subject
 * label (`issue-<n>`, `pr-<n>`) in both directions, and the default run id `<graph-name>/<subject>`.
 * Pure: every face (Action, App, CLI) asks here instead of writing its own pattern.
 */

/** Parts of letters, digits, `.`, `_` and `-`, joined by `/`. */
const RUN_ID_PATTERN = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;
/** The longest run id accepted: it becomes a file name under `runs/`. */
export const MAX_RUN_ID_CHARS = 200;

/** Why a run id is refused, or undefined when it is safe as a file name under `runs/`. */
export function runIdProblem(id: string): string | undefined {
  if (!RUN_ID_PATTERN.test(id)) return 'use letters, digits, ".", "_", "-" and "/" between parts';
  if (id.includes('..') || id.split('/').includes('.')) return 'no part may be "." and no ".." may appear';
  if (id.length > MAX_RUN_ID_CHARS) return `at most ${MAX_RUN_ID_CHARS} characters`;
  return undefined;
}

/** Whether a run id is safe as a file name under `runs/`: the pattern, no `.` part, no `..`, 200 characters at most. */
export function validRunId(id: string): boolean {
  return runIdProblem(id) === undefined;
}

/** An issue or a pull request, as a run's subject. */
export interface SubjectRef {
  kind: 'issue' | 'pr';
  number: number;
}

/** The subject label: `issue-<n>` or `pr-<n>`. */
export function subjectLabel(subject: SubjectRef): string {
  return `${subject.kind}-${subject.number}`;
}

/** The subject of an issue payload object (`issue.pull_request` set means a pull request). */
export function issueSubject(issue: { number: number; pull_request?: unknown }): SubjectRef {
  return { kind: issue.pull_request ? 'pr' : 'issue', number: issue.number };
}

/** The issue or pull request an event payload is about, if any (`pull_request` first, then `issue`). */
export function payloadSubject(payload: Record<string, unknown>): SubjectRef | undefined {
  const pr = payload.pull_request as { number?: unknown } | undefined;
  const issue = payload.issue as { number?: unknown; pull_request?: unknown } | undefined;
  if (isPositiveInt(pr?.number)) return { kind: 'pr', number: pr.number };
  if (isPositiveInt(issue?.number))
    return issueSubject({ number: issue.number, pull_request: issue.pull_request });
  return undefined;
}

function isPositiveInt(n: unknown): n is number {
  return typeof n === 'number' && Number.isInteger(n) && n > 0;
}

const LABEL = /^(issue|pr)-(\d+)$/;
const LAST_PART_LABEL = /(?:^|\/)(issue|pr)-(\d+)$/;

/** The subject a label names (`issue-42` → issue 42), or undefined for any other label (a ref, `local`). */
export function parseSubjectLabel(label: string): SubjectRef | undefined {
  const m = LABEL.exec(label);
  return m ? { kind: m[1] as SubjectRef['kind'], number: Number(m[2]) } : undefined;
}

/** The subject a run id names by its last part (`fix-bug/pr-7` → pull request 7), when it names one. */
export function subjectOfRun(runId: string): SubjectRef | undefined {
  const m = LAST_PART_LABEL.exec(runId);
  return m ? { kind: m[1] as SubjectRef['kind'], number: Number(m[2]) } : undefined;
}

/** Whether a run is about the subject with this label: its id is the label or ends with `/<label>`. */
export function runIsAbout(runId: string, label: string): boolean {
  return runId === label || runId.endsWith(`/${label}`);
}

/** The default run id: `<graph-name>/<subject label>`, e.g. `fix-bug/issue-42`. */
export function defaultRunId(graphName: string, subjectLabel: string): string {
  return `${graphName}/${subjectLabel}`;
}

/**
 * A run id as one of its subject's series: `fix/issue-80-3` is number 3 of `fix/issue-80`; an id with no `-<k>`
 * after its subject's label (`fix/issue-80`, a CLI run `demo`) is number 1 of itself.
 */
function seriesOf(runId: string): { base: string; k: number } {
  const m = /^((?:.*\/)?(?:issue|pr)-\d+)-(\d+)$/.exec(runId);
  return m ? { base: m[1]!, k: Number(m[2]) } : { base: runId, k: 1 };
}

/**
 * The one next-run-id scheme (issue 45): the id that starts a run afresh, or forks an ended one, is the next number
 * of its series not `taken`: `fix/issue-80` → `fix/issue-80-2`, `fix/issue-80-2` → `fix/issue-80-3` (never
 * `-2-2`, which run lookup would not see as about issue 80). The CLI, the App and the Action all name runs so. Pure.
 */
export function nextRunId(runId: string, taken: (id: string) => boolean = () => false): string {
  const { base, k } = seriesOf(runId);
  for (let n = k + 1; ; n++) if (!taken(`${base}-${n}`)) return `${base}-${n}`;
}

/**
 * The run a new run id starts afresh from, the one before it in its series: `fix/issue-80-2` → `fix/issue-80`,
 * `-3` → `-2`. Undefined for the first of a series. Pure.
 */
export function previousRunId(runId: string): string | undefined {
  const { base, k } = seriesOf(runId);
  if (k < 2) return undefined;
  return k > 2 ? `${base}-${k - 1}` : base;
}
