// Run resolution and the commenter's authorization, the pure part of the Action: no bundle, no server.
import { describe, expect, it } from 'vitest';
import {
  commenterOf,
  intentOf,
  resumeFrom,
  resumesById,
  routeAnswer,
  runIdInputProblem,
  startRefusal,
} from '../../src/action/context/run-plan.js';
import { parseConfig } from '../../src/config/load.js';
import type { Journal } from '../../src/journal/events/events.js';

const ref = { kind: 'ref' as const, label: 'main' };
const issue7 = { kind: 'issue' as const, number: 7, label: 'issue-7' };

function journal(subject: string, intent = 'issues.labeled'): Journal {
  return {
    run_id: 'fix/x',
    graph: { path: '.github/interlock/fix.yml' },
    events: [{ type: 'RunStarted', subject, intent }],
  } as unknown as Journal;
}

describe('run resolution', () => {
  it('the intent is the event name and its action', () => {
    expect(intentOf('issues', { action: 'labeled' })).toBe('issues.labeled');
    expect(intentOf('workflow_dispatch', {})).toBe('workflow_dispatch');
  });

  it('a run-id input with a ".." or over 200 characters is refused, naming the input', () => {
    expect(runIdInputProblem('fix/issue-1')).toBeUndefined();
    expect(runIdInputProblem('fix/../x')).toMatch(/^run-id "fix\/\.\.\/x" is not allowed: /);
    expect(runIdInputProblem('a..b')).toMatch(/is not allowed/);
    expect(runIdInputProblem('x'.repeat(201))).toMatch(/at most 200 characters/);
  });

  it('a run id is resumed from its journal when the step names no graph or no subject', () => {
    expect(resumesById('fix/x', { graphPath: '', intent: 'i', subject: issue7 })).toBe(true);
    expect(resumesById('fix/x', { graphPath: 'g.yml', intent: 'i', subject: ref })).toBe(true);
    expect(resumesById('fix/x', { graphPath: 'g.yml', intent: 'i', subject: issue7 })).toBe(false);
    expect(resumesById('', { graphPath: '', intent: 'i', subject: ref })).toBe(false);
  });

  it('a resumed run takes its graph, intent and subject from the journal', () => {
    const t = resumeFrom(journal('pr-9'), { graphPath: '', intent: 'workflow_dispatch', subject: ref });
    expect(t).toEqual({
      graphPath: '.github/interlock/fix.yml',
      intent: 'issues.labeled',
      subject: { kind: 'pr', number: 9, label: 'pr-9' },
    });
  });

  it('a journal an older CLI wrote with an absolute graph path resumes under the path the run started with', () => {
    const old = {
      run_id: 'fix/x',
      graph: { path: '/tmp/tmp.xqu3wqH9ln/.github/interlock/fix.yml' },
      events: [
        { type: 'RunStarted', subject: 'issue-7', intent: 'i', graph: { path: '.github/interlock/fix.yml' } },
      ],
    } as unknown as Journal;
    expect(resumeFrom(old, { graphPath: '', intent: 'x', subject: ref }).graphPath).toBe(
      '.github/interlock/fix.yml',
    );
  });

  it('a graph input wins over the journal, and a subject label that names no issue keeps the step subject', () => {
    const t = resumeFrom(journal('main'), { graphPath: 'mine.yml', intent: 'x', subject: ref });
    expect(t.graphPath).toBe('mine.yml');
    expect(t.subject).toBe(ref);
  });

  it('no journal changes nothing', () => {
    const target = { graphPath: '', intent: 'x', subject: ref };
    expect(resumeFrom(undefined, target)).toBe(target);
  });

  it('no route says whether the routing table or the file itself is missing', () => {
    const config = parseConfig('c.yml', 'routes: []\n');
    expect(routeAnswer(config, null, 'issues.opened', 'c.yml')).toEqual({
      noRoute: 'no route in c.yml matches issues.opened; nothing to run',
    });
    expect(routeAnswer(undefined, null, 'issues.opened', 'c.yml')).toEqual({
      noRoute: 'no graph input and no c.yml: set the graph input or add a routes table',
    });
  });

  it('a route matched by a slash command is marked, so the commenter is checked', () => {
    const config = parseConfig(
      'c.yml',
      'routes:\n  - event: issue_comment\n    command: /fix\n    graph: f.yml\n  - event: issues\n    graph: g.yml\n',
    );
    expect(routeAnswer(config, { graph: 'f.yml', intent: 'cmd', index: 0 }, 'x', 'c.yml')).toEqual({
      graphPath: 'f.yml',
      intent: 'cmd',
      command: true,
      route: 0,
    });
    expect(routeAnswer(config, { graph: 'g.yml', intent: 'iss', index: 1 }, 'x', 'c.yml')).toMatchObject({
      command: false,
    });
  });
});

describe('who may start a run from a comment', () => {
  const person = { login: 'mona', type: 'User' };
  const comment = (over: Record<string, unknown>) => ({
    action: 'created',
    sender: person,
    comment: { user: person },
    ...over,
  });

  it('the comment author is the commenter', () => {
    expect(commenterOf(comment({}))).toEqual({ login: 'mona' });
  });

  it('a bot, an edited comment and an event with no sender are refused', () => {
    const bot = { login: 'x[bot]', type: 'Bot' };
    expect(commenterOf(comment({ sender: bot, comment: { user: bot } }))).toMatchObject({
      refused: expect.stringContaining('bot'),
    });
    expect(commenterOf(comment({ action: 'edited' }))).toMatchObject({
      refused: expect.stringContaining('edited'),
    });
    expect(commenterOf({ action: 'created' })).toEqual({ refused: 'the event names no commenter' });
  });

  it('starting needs the approval permission, and the refusal says so in words about starting', () => {
    const config = parseConfig('c.yml', 'routes: []\napprovals:\n  permission: maintain\n');
    expect(startRefusal(config, { login: 'mona', permission: 'maintain', teams: {} })).toBeUndefined();
    expect(startRefusal(config, { login: 'mona', permission: 'write', teams: {} })).toBe(
      '@mona has write permission; starting a run from a comment needs maintain',
    );
  });

  it('a listed approver may start a run without the permission', () => {
    const config = parseConfig('c.yml', 'routes: []\napprovals:\n  approvers: [mona]\n');
    expect(startRefusal(config, { login: 'mona', permission: 'read', teams: {} })).toBeUndefined();
  });
});
