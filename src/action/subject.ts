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
  const pr = payload.pull_request as { number?: number; head?: { sha?: string } } | undefined;
  const issue = payload.issue as { number?: number; pull_request?: unknown } | undefined;
  const dispatched = Number(
    inputs?.subject ?? (payload.inputs as Record<string, unknown> | undefined)?.subject,
  );
  if (pr?.number)
    return {
      kind: 'pr',
      number: pr.number,
      label: `pr-${pr.number}`,
      ...(pr.head?.sha ? { headSha: pr.head.sha } : {}),
    };
  if (issue?.number) {
    const kind = issue.pull_request ? 'pr' : 'issue';
    return { kind, number: issue.number, label: `${kind}-${issue.number}` };
  }
  if (Number.isInteger(dispatched) && dispatched > 0)
    return { kind: 'issue', number: dispatched, label: `issue-${dispatched}` };
  return { kind: 'ref', label: safeRef(ref) };
}

/** The default run id: `<graph name>/issue-<n>`, `/pr-<n>`, else `/<ref>`. */
export function defaultRunId(graphName: string, subject: Subject): string {
  return `${graphName}/${subject.label}`;
}
