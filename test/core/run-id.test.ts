// Run ids and subject labels: the one home every face asks (src/journal/run-id.ts).
import { describe, expect, it } from 'vitest';
import {
  defaultRunId,
  issueSubject,
  MAX_RUN_ID_CHARS,
  nextRunId,
  parseSubjectLabel,
  payloadSubject,
  previousRunId,
  runIdProblem,
  runIsAbout,
  subjectLabel,
  subjectOfRun,
  validRunId,
} from '../../src/journal/run-id.js';

describe('run id validation', () => {
  it('accepts parts of letters, digits, ".", "_" and "-" joined by "/"', () => {
    expect(validRunId('fix-bug/issue-42')).toBe(true);
    expect(validRunId('a.b_c-d/e/f')).toBe(true);
  });

  it('refuses characters outside the pattern, with the allowed set in the reason', () => {
    expect(validRunId('fix bug')).toBe(false);
    expect(runIdProblem('a;rm')).toContain('letters, digits');
  });

  it('refuses empty parts, a leading or a trailing slash', () => {
    for (const id of ['', '/a', 'a/', 'a//b']) expect(validRunId(id)).toBe(false);
  });

  it('refuses "." and ".." parts and ".." anywhere', () => {
    for (const id of ['.', '..', 'a/./b', 'a/../b', 'a..b']) expect(runIdProblem(id)).toContain('".."');
  });

  it('refuses ids over 200 characters and accepts one of exactly 200', () => {
    expect(validRunId('a'.repeat(MAX_RUN_ID_CHARS))).toBe(true);
    expect(runIdProblem('a'.repeat(MAX_RUN_ID_CHARS + 1))).toBe('at most 200 characters');
  });
});

describe('subject labels', () => {
  it('formats issues and pull requests as issue-<n> and pr-<n>', () => {
    expect(subjectLabel({ kind: 'issue', number: 42 })).toBe('issue-42');
    expect(subjectLabel({ kind: 'pr', number: 7 })).toBe('pr-7');
  });

  it('parses exactly the labels it formats, and nothing else', () => {
    expect(parseSubjectLabel('issue-42')).toEqual({ kind: 'issue', number: 42 });
    expect(parseSubjectLabel('pr-7')).toEqual({ kind: 'pr', number: 7 });
    for (const label of ['local', 'main', 'issue-', 'pr-7x', 'x/pr-7'])
      expect(parseSubjectLabel(label)).toBeUndefined();
  });

  it('reads an issue that is a pull request as pr', () => {
    expect(issueSubject({ number: 3, pull_request: {} })).toEqual({ kind: 'pr', number: 3 });
    expect(issueSubject({ number: 3 })).toEqual({ kind: 'issue', number: 3 });
  });

  it('takes the subject of a payload from pull_request first, then issue, else none', () => {
    expect(payloadSubject({ pull_request: { number: 5 }, issue: { number: 9 } })).toEqual({
      kind: 'pr',
      number: 5,
    });
    expect(payloadSubject({ issue: { number: 9, pull_request: {} } })).toEqual({ kind: 'pr', number: 9 });
    expect(payloadSubject({ issue: { number: 9 } })).toEqual({ kind: 'issue', number: 9 });
    expect(payloadSubject({ ref: 'refs/heads/main' })).toBeUndefined();
    expect(payloadSubject({ issue: { number: '9' } })).toBeUndefined();
  });
});

describe('run ids and subjects', () => {
  it('builds the default run id as <graph-name>/<subject>', () => {
    expect(defaultRunId('fix-bug', subjectLabel({ kind: 'issue', number: 42 }))).toBe('fix-bug/issue-42');
  });

  it('reads the subject from the last part of a run id', () => {
    expect(subjectOfRun('fix-bug/pr-7')).toEqual({ kind: 'pr', number: 7 });
    expect(subjectOfRun('issue-3')).toEqual({ kind: 'issue', number: 3 });
    expect(subjectOfRun('fix-bug/issue-3/retry')).toBeUndefined();
    expect(subjectOfRun('fix-bug/xissue-3')).toBeUndefined();
  });

  it('says a run is about a label only when its id is the label or ends with /<label>', () => {
    expect(runIsAbout('fix-bug/issue-4', 'issue-4')).toBe(true);
    expect(runIsAbout('issue-4', 'issue-4')).toBe(true);
    expect(runIsAbout('fix-bug/issue-42', 'issue-4')).toBe(false);
    expect(runIsAbout('fix-bug/xissue-4', 'issue-4')).toBe(false);
  });
});

describe('the one next-run-id scheme (issue 45)', () => {
  it('a new or forked run is the next free number of its series, never a suffix on a suffix', () => {
    expect(nextRunId('fix/issue-80')).toBe('fix/issue-80-2');
    expect(nextRunId('fix/issue-80-2')).toBe('fix/issue-80-3');
    expect(nextRunId('pr-7-9')).toBe('pr-7-10');
    expect(nextRunId('fix/issue-80', (id) => id === 'fix/issue-80-2')).toBe('fix/issue-80-3');
    expect(nextRunId('fix/issue-80-2', (id) => id === 'fix/issue-80-3')).toBe('fix/issue-80-4');
    // A run id that names no subject (the CLI's graph name) has no series of its own.
    expect(nextRunId('demo', (id) => id === 'demo-2')).toBe('demo-3');
  });

  it('the run before one in its series is its inverse (the Action starts a new id afresh from it)', () => {
    for (const id of ['fix/issue-80', 'fix/issue-80-2', 'fix/issue-80-7', 'pr-3'])
      expect(previousRunId(nextRunId(id))).toBe(id);
    expect(previousRunId('fix/issue-80')).toBeUndefined();
    expect(previousRunId('demo-2')).toBeUndefined();
  });
});
