// The `status` output, one mapping for every mode, as pure functions: no bundle, no server.
import { describe, expect, it } from 'vitest';
import { checkpointStatus, stepStatus } from '../../src/action/report/status.js';
import type { Checkpoint } from '../../src/journal/state.js';
import type { StepResult } from '../../src/runner/step-result.js';

function cp(over: Partial<Checkpoint>): Checkpoint {
  return {
    status: 'running',
    ready_nodes: [],
    active_nodes: [],
    held_nodes: [],
    escalated_nodes: [],
    ...over,
  } as Checkpoint;
}

function result(kind: StepResult['kind'], checkpoint: Checkpoint): StepResult {
  return {
    kind,
    node: 'a',
    attempt: 1,
    cur: { state: { checkpoint } },
    message: '',
  } as unknown as StepResult;
}

describe('checkpointStatus (plan, recover)', () => {
  it('a completed run is run-completed and a failed one failed', () => {
    expect(checkpointStatus(cp({ status: 'completed' }))).toBe('run-completed');
    expect(checkpointStatus(cp({ status: 'failed' }))).toBe('failed');
  });

  it('a blocked run names what it waits for: held before escalated, else not-ready', () => {
    expect(checkpointStatus(cp({ status: 'blocked', held_nodes: ['a'], escalated_nodes: ['b'] }))).toBe(
      'held',
    );
    expect(checkpointStatus(cp({ status: 'blocked', escalated_nodes: ['b'] }))).toBe('escalated');
    expect(checkpointStatus(cp({ status: 'blocked' }))).toBe('not-ready');
  });

  it('a run with a node ready or in flight is running, even with another node held', () => {
    expect(checkpointStatus(cp({ ready_nodes: ['b'], held_nodes: ['a'] }))).toBe('running');
    expect(checkpointStatus(cp({ active_nodes: ['b'], held_nodes: ['a'] }))).toBe('running');
  });
});

describe('stepStatus (mode: step)', () => {
  const running = cp({ ready_nodes: ['b'] });

  it('each result kind maps to its word', () => {
    expect(stepStatus(result('recorded', running), undefined)).toBe('completed');
    expect(stepStatus(result('failed', running), undefined)).toBe('failed');
    expect(stepStatus(result('stale', running), undefined)).toBe('failed');
    expect(stepStatus(result('escalated', running), undefined)).toBe('escalated');
    expect(stepStatus(result('skipped', running), undefined)).toBe('skipped');
    expect(stepStatus(result('run-completed', running), undefined)).toBe('run-completed');
  });

  it('an ended run is run-completed when it completed and failed otherwise', () => {
    expect(stepStatus(result('ended', cp({ status: 'completed' })), undefined)).toBe('run-completed');
    expect(stepStatus(result('ended', cp({ status: 'failed' })), undefined)).toBe('failed');
  });

  it('a blocked step for a held or escalated node says so, whatever else the run has ready', () => {
    const c = cp({ ready_nodes: ['c'], held_nodes: ['a'], escalated_nodes: ['b'] });
    expect(stepStatus(result('blocked', c), 'a')).toBe('held');
    expect(stepStatus(result('blocked', c), 'b')).toBe('escalated');
    expect(stepStatus(result('blocked', c), 'c')).toBe('not-ready');
  });

  it('a blocked next step is held or escalated only when nothing else is ready or in flight', () => {
    expect(stepStatus(result('blocked', cp({ status: 'blocked', held_nodes: ['a'] })), undefined)).toBe(
      'held',
    );
    expect(stepStatus(result('blocked', cp({ active_nodes: ['b'], held_nodes: ['a'] })), undefined)).toBe(
      'not-ready',
    );
    expect(stepStatus(result('blocked', cp({ status: 'blocked', escalated_nodes: ['a'] })), undefined)).toBe(
      'escalated',
    );
  });
});
