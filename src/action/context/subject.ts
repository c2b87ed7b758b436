/** The Action's subject of a run, from the event payload: the issue or pull request, else the git ref. */
import { parseSubjectLabel, payloadSubject, subjectLabel } from '../../journal/run-id.js';

/** The run's subject from the event payload: the issue or pull request it is about. */
export interface Subject {
  kind: 'issue' | 'pr' | 'ref';
  number?: number;
  label: string;
  /** The head commit, for pull requests (where check runs live). */
  headSha?: string;
}

function safeRef(ref: string): string {
  const short = ref.replace(/^refs\/(heads|tags)\//, '');
  const clean = short.replace(/[^A-Za-z0-9._-]+/g, '-').replace(/^[-.]+|[-.]+$/g, '');
  return (clean || 'ref').slice(0, 60);
}

/** Pure: the subject of an event (branch names are untrusted: reduced to safe characters). */
export function subjectOf(
  payload: Record<string, unknown>,
  ref: string,
  inputs?: Record<string, unknown>,
): Subject {
  const found = payloadSubject(payload);
  if (found) {
    const pr = payload.pull_request as { head?: { sha?: string } } | undefined;
    const headSha = found.kind === 'pr' ? pr?.head?.sha : undefined;
    return { ...found, label: subjectLabel(found), ...(headSha ? { headSha } : {}) };
  }
  const dispatched = Number(
    inputs?.subject ?? (payload.inputs as Record<string, unknown> | undefined)?.subject,
  );
  if (Number.isInteger(dispatched) && dispatched > 0)
    return { kind: 'issue', number: dispatched, label: subjectLabel({ kind: 'issue', number: dispatched }) };
  return { kind: 'ref', label: safeRef(ref) };
}

/** The subject a label recorded in a step's state names (`issue-<n>`, `pr-<n>`), else a ref subject. Pure. */
export function subjectOfLabel(label: string, headSha?: string): Subject {
  const found = parseSubjectLabel(label);
  return found ? { ...found, label, ...(headSha ? { headSha } : {}) } : { kind: 'ref', label };
}
