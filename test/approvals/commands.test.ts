// The comment parser: pure, so every case is a plain input and output.
import { describe, expect, it } from 'vitest';
import { MAX_COMMENT_CHARS, parseComment, shown } from '../../src/approvals/commands/parse.js';
import { validRunId } from '../../src/journal/run-id.js';

const cmd = (body: string) => {
  const r = parseComment(body);
  return r.kind === 'command' ? r.command : r;
};

describe('parseComment: the four commands', () => {
  it('reads /approve-rerun with and without a run id', () => {
    expect(cmd('/approve-rerun deploy')).toEqual({ kind: 'approve-rerun', node: 'deploy' });
    expect(cmd('/approve-rerun deploy fix/issue-1')).toEqual({
      kind: 'approve-rerun',
      node: 'deploy',
      runId: 'fix/issue-1',
    });
    expect(cmd('/approve-rerun --run=fix/issue-1 deploy')).toEqual({
      kind: 'approve-rerun',
      node: 'deploy',
      runId: 'fix/issue-1',
    });
  });

  it('reads /settle with its note (the rest of the line) and an optional --run=', () => {
    expect(cmd('/settle deploy  the tag v1.2 exists ')).toEqual({
      kind: 'settle',
      node: 'deploy',
      note: 'the tag v1.2 exists',
    });
    expect(cmd('/settle --run=a/pr-3 deploy ok')).toEqual({
      kind: 'settle',
      node: 'deploy',
      note: 'ok',
      runId: 'a/pr-3',
    });
  });

  it('reads /fail-run with its reason, and /interlock status', () => {
    expect(cmd('/fail-run not needed any more')).toEqual({ kind: 'fail-run', reason: 'not needed any more' });
    expect(cmd('/interlock status')).toEqual({ kind: 'status' });
    expect(cmd('/interlock status fix/issue-1')).toEqual({ kind: 'status', runId: 'fix/issue-1' });
  });

  it('finds the command on a line of its own among other text, with up to three leading spaces', () => {
    expect(cmd('Looks good to me.\n\n   /approve-rerun deploy   \nThanks!')).toEqual({
      kind: 'approve-rerun',
      node: 'deploy',
      // The lines after an approval are its guidance.
      guidance: 'Thanks!',
    });
    expect(parseComment('a\n/approve-rerun deploy')).toMatchObject({ kind: 'command', line: 2 });
  });

  it('reads a command after a closed code block and a BOM-prefixed body', () => {
    expect(cmd('```\nlog\n```\n/approve-rerun deploy')).toEqual({ kind: 'approve-rerun', node: 'deploy' });
    expect(cmd('\uFEFF/approve-rerun deploy')).toEqual({ kind: 'approve-rerun', node: 'deploy' });
  });
});

describe('parseComment: what is not a command', () => {
  it.each([
    ['empty', ''],
    ['plain text', 'lgtm'],
    ['a path', '/usr/bin/env is fine'],
    ['an unknown slash word', '/shrug'],
    ['a route command', '/interlock fix'],
    ['inside a fence closed by a longer fence', '````\n/approve-rerun deploy\n```\n````'],
    ['inside a fence with an info string', '```text\n/approve-rerun deploy\n```'],
    ['in a quote', '> /approve-rerun deploy'],
    ['in a multi-line HTML comment', '<!-- hidden\n/approve-rerun deploy\n-->'],
  ])('%s', (_, body) => {
    expect(parseComment(body)).toEqual({ kind: 'none' });
  });

  it('null and undefined bodies are no command', () => {
    expect(parseComment(null)).toEqual({ kind: 'none' });
    expect(parseComment(undefined)).toEqual({ kind: 'none' });
  });
});

describe('parseComment: refusals', () => {
  it('refuses two commands, naming both lines', () => {
    expect(parseComment('/approve-rerun a\n/approve-rerun b')).toEqual({
      kind: 'refused',
      reason:
        'one command per comment: found `/approve-rerun` (line 1), `/approve-rerun` (line 2); post each in a comment of its own',
    });
  });

  it('counts a badly formed second command too', () => {
    expect(parseComment('/approve-rerun a\n/settle')).toMatchObject({
      kind: 'refused',
      reason: /one command/,
    });
  });

  it('refuses an oversized body that holds a command, and ignores one that does not', () => {
    const big = 'z'.repeat(MAX_COMMENT_CHARS);
    expect(parseComment(`/approve-rerun a\n${big}`)).toMatchObject({ kind: 'refused', reason: /over 65536/ });
    expect(parseComment(`hello\n${big}`)).toEqual({ kind: 'none' });
    // Exactly at the limit is read.
    // (`/interlock status`, whose following lines are not guidance, which has a bound of its own.)
    expect(parseComment(`/interlock status\n${'z'.repeat(MAX_COMMENT_CHARS - 18)}`)).toMatchObject({
      kind: 'command',
    });
  });

  it('/approve reads the lines after the command as guidance, kept as written', () => {
    expect(cmd('/approve publish\n\nUse the staging registry.\n  $(touch CANARY)\n')).toEqual({
      kind: 'approve',
      node: 'publish',
      guidance: 'Use the staging registry.\n  $(touch CANARY)',
    });
  });

  it('refuses guidance over its bound, saying the bound and the fix', () => {
    const r = parseComment(`/approve publish\n${'g'.repeat(4001)}`);
    expect(r).toEqual({
      kind: 'refused',
      name: '/approve',
      reason:
        'the guidance after the command is 4001 characters long, over 4000: shorten it (or put the details in a file the node reads) and post the approval again',
    });
  });

  it('counts characters, not UTF-16 units: 65,536 emoji are within the limit', () => {
    const body = `/interlock status\n${'😀'.repeat(MAX_COMMENT_CHARS - 18)}`;
    expect(body.length).toBeGreaterThan(MAX_COMMENT_CHARS);
    expect(parseComment(body)).toMatchObject({ kind: 'command' });
  });

  it('refuses a note or reason over 1,000 characters', () => {
    expect(parseComment(`/fail-run ${'r'.repeat(1001)}`)).toMatchObject({
      kind: 'refused',
      reason: /longer than 1000/,
    });
  });

  it('refuses bad run ids given as --run=', () => {
    expect(parseComment('/settle --run=../x deploy ok')).toMatchObject({
      kind: 'refused',
      reason: /not a run id/,
    });
    expect(parseComment('/fail-run --run= why')).toMatchObject({ kind: 'refused', reason: /not a run id/ });
  });

  it('refuses extra words after /interlock status <run-id>', () => {
    expect(parseComment('/interlock status a b')).toMatchObject({
      kind: 'refused',
      reason: /too many words/,
    });
  });
});

describe('helpers', () => {
  it('validRunId takes names joined by "/" and refuses "." and ".." anywhere', () => {
    expect(validRunId('fix-bug/issue-42')).toBe(true);
    expect(validRunId('a.b/c_d')).toBe(true);
    for (const bad of ['', '/a', 'a/', 'a//b', '..', 'a/../b', 'a..b', './a', 'a b', 'a/./b'])
      expect(validRunId(bad), bad).toBe(false);
  });

  it('shown() puts untrusted text in a code span it cannot leave, cut short', () => {
    expect(shown('a`b\nc')).toBe('`a?b?c`');
    expect(shown('x'.repeat(50))).toBe(`\`${'x'.repeat(40)}…\``);
  });
});
