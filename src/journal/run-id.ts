/**
 * The one home for run ids and subject labels: the run-id pattern and its validation, the subject
 * label (`issue-<n>`, `pr-<n>`) in both directions, and the default run id `<graph-name>/<subject>`.
 * Pure: every face (Action, App, CLI) asks here instead of writing its own pattern.
 */

/** Parts of letters, digits, `.`, `_` and `-`, joined by `/`. */
export const RUN_ID_PATTERN = /^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/;
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

/** The id that starts a run afresh for the same subject: `<name>/pr-<n>-2`, or one more than its `-<k>`. Pure. */
export function nextRunId(runId: string): string {
  const m = /^(.*\/(?:issue|pr)-\d+)-(\d+)$/.exec(runId);
  return m ? `${m[1]}-${Number(m[2]) + 1}` : `${runId}-2`;
}
