// One describe per numbered rule (docs/ARCHITECTURE.md, "The rules"); each test states one behaviour of the pure
// core. A rule decided in two files has a nested describe per file.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { sha256 } from '../../src/graph/canonical.js';
import { GraphError } from '../../src/graph/errors.js';
import type { Journal, NewEvent } from '../../src/journal/events/events.js';
import { fold } from '../../src/journal/fold.js';
import { parseJournal, serializeJournal } from '../../src/journal/parse.js';
import { JournalError } from '../../src/journal/state.js';
import { graphChange } from '../../src/protocol/commands/graph-change.js';
import { approveRerun } from '../../src/protocol/commands/person-commands.js';
import { decideNext, decideResult } from '../../src/protocol/decide.js';
import { recoverEvents } from '../../src/protocol/recovery.js';
import { runOf } from '../../src/protocol/run.js';
import { readRun } from '../../src/runner/journal-io/read.js';
import { FileStore } from '../../src/store/file.js';
import {
  append,
  checkpointJson,
  EXIT_1,
  foldError,
  graph,
  graphText,
  RUNNER,
  Sim,
  startJournal,
} from './sim.js';

const dispatchOf = (node: string, attempt: number, replay: 'safe' | 'never' = 'never'): NewEvent => ({
  type: 'NodeDispatched',
  node,
  attempt,
  replay,
  approach: 'default',
  runner: RUNNER,
});

describe('rule 1: a node is ready when its dependencies ended, in declaration order', () => {
  const g = graph(
    graphText(`  - id: zeta
    run: echo z
  - id: alpha
    run: echo a
  - id: mid
    run: echo m
  - id: join
    run: echo j
    depends_on: [zeta, alpha]
  - id: maybe
    run: echo maybe
    execute_conditions: ["inputs.go == 'yes'"]
  - id: after_maybe
    run: echo after
    depends_on: [maybe]
`),
  );

  it('every node without dependencies is ready when the run starts, in declaration order', () => {
    const cp = new Sim(g).cp;
    expect(cp.ready_nodes).toEqual(['zeta', 'alpha', 'mid', 'maybe']);
    expect(cp.status).toBe('running');
  });

  it('a node waits until every depends_on node is completed', () => {
    const sim = new Sim(g);
    sim.dispatch('zeta');
    sim.succeed('zeta');
    expect(sim.cp.ready_nodes).toEqual(['alpha', 'mid', 'maybe']);
    sim.dispatch('alpha');
    sim.succeed('alpha');
    expect(sim.cp.ready_nodes).toEqual(['mid', 'join', 'maybe']);
  });

  it('a skipped dependency counts as ended', () => {
    const sim = new Sim(g, { go: 'no' });
    expect(sim.step('maybe')).toMatchObject({ kind: 'skip', node: 'maybe' });
    expect(sim.cp.skipped_nodes).toEqual(['maybe']);
    expect(sim.cp.ready_nodes).toEqual(['zeta', 'alpha', 'mid', 'after_maybe']);
  });

  it('completed and skipped nodes are never ready again', () => {
    const sim = new Sim(g, { go: 'no' });
    sim.dispatch('mid');
    sim.succeed('mid');
    sim.step('maybe');
    expect(sim.cp.ready_nodes).toEqual(['zeta', 'alpha', 'after_maybe']);
    expect(sim.next('mid')).toEqual({ kind: 'blocked', reason: 'node "mid" is not ready: it is completed' });
  });

  it('the next node dispatched is the first ready one in declaration order', () => {
    const sim = new Sim(g);
    expect(sim.dispatch().node.id).toBe('zeta');
    expect(sim.dispatch().node.id).toBe('alpha');
  });

  it('the ready list does not depend on the order in which earlier nodes ended', () => {
    const one = new Sim(g);
    const two = new Sim(g);
    for (const id of ['mid', 'alpha']) one.dispatch(id);
    one.succeed('alpha').succeed('mid');
    for (const id of ['alpha', 'mid']) two.dispatch(id);
    two.succeed('mid').succeed('alpha');
    expect(one.cp.ready_nodes).toEqual(['zeta', 'maybe']);
    expect(two.cp.ready_nodes).toEqual(['zeta', 'maybe']);
  });

  it('no node is ready once the run has ended', () => {
    const sim = new Sim(g);
    sim.failRun('ann', 'wrong issue');
    expect(sim.cp.ready_nodes).toEqual([]);
    expect(sim.cp.status).toBe('failed');
    expect(sim.next()).toEqual({ kind: 'ended', status: 'failed', reason: 'wrong issue' });
  });

  it('the fold refuses a dispatch or a skip before the dependencies ended', () => {
    const j = startJournal(g);
    expect(foldError(append(j, [dispatchOf('join', 1)]), g)).toEqual({
      message: 'event 2 (NodeDispatched): node "join" dispatched before "zeta" ended',
      seq: 2,
    });
    expect(foldError(append(j, [{ type: 'NodeSkipped', node: 'after_maybe', reason: 'x' }]), g)).toEqual({
      message: 'event 2 (NodeSkipped): node "after_maybe" skipped before "maybe" ended',
      seq: 2,
    });
  });
});

describe('rule 2: a node in flight is not ready, so it is never dispatched twice', () => {
  const g = graph(
    graphText(`  - id: a
    run: echo a
  - id: b
    run: echo b
  - id: c
    run: echo c
    depends_on: [a]
`),
  );

  it('a dispatched node is in flight and not ready; the next decision is another node', () => {
    const sim = new Sim(g);
    sim.dispatch('a');
    expect(sim.cp.active_nodes).toEqual(['a']);
    expect(sim.cp.ready_nodes).toEqual(['b']);
    expect(sim.dispatch().node.id).toBe('b');
  });

  it('decideNext never proposes a node in flight, even when asked for it by name', () => {
    const sim = new Sim(g);
    sim.dispatch('a');
    expect(sim.next('a')).toEqual({ kind: 'blocked', reason: 'node "a" is not ready: it is in flight' });
  });

  it('the fold refuses a second NodeDispatched while the first attempt is in flight', () => {
    const sim = new Sim(g);
    sim.dispatch('a');
    expect(foldError(append(sim.journal, [dispatchOf('a', 2)]), g)).toEqual({
      message: 'event 3 (NodeDispatched): node "a" is in flight; it cannot be dispatched',
      seq: 3,
    });
    expect(foldError(append(sim.journal, [dispatchOf('a', 1)]), g).message).toBe(
      'event 3 (NodeDispatched): node "a" is in flight; it cannot be dispatched',
    );
  });

  it('a consumer that never recovers stalls: it is blocked and writes nothing, however often it asks', () => {
    const sim = new Sim(graph(graphText('  - id: a\n    run: echo a\n')));
    sim.dispatch();
    const before = serializeJournal(sim.journal);
    for (let i = 0; i < 3; i++) expect(sim.step()).toEqual({ kind: 'blocked', reason: 'in flight: a' });
    expect(serializeJournal(sim.journal)).toBe(before);
    expect(sim.cp.status).toBe('running');
  });

  it('a result for an attempt that is no longer in flight is stale and writes nothing', () => {
    const sim = new Sim(g);
    sim.dispatch('a');
    sim.succeed('a');
    const outcome = { failures: [], evidence: [], outputs: {}, usage: { wall_ms: 1 } };
    expect(decideResult(sim.run, { node: 'a', attempt: 1, outcome })).toEqual({
      kind: 'stale',
      events: [],
      reason:
        'node "a" attempt 1 is no longer in flight (it is completed); its result was not recorded: settle it by hand if its work is done',
    });
  });

  it('a result that arrives after the run ended is stale: nothing is written after the end', () => {
    const sim = new Sim(g);
    sim.dispatch('a');
    sim.failRun('ann', 'wrong issue');
    for (const failures of [[], EXIT_1]) {
      expect(
        decideResult(sim.run, {
          node: 'a',
          attempt: 1,
          outcome: {
            failures,
            evidence: [],
            outputs: {},
            usage: { wall_ms: 1 },
          },
        }),
      ).toEqual({
        kind: 'stale',
        events: [],
        reason:
          'the run ended (RunFailed: wrong issue) while node "a" attempt 1 was in flight; its result was not recorded',
      });
    }
  });
});

describe('rule 3: recovery interrupts attempts whose executor is gone; safe reruns, never holds', () => {
  const g = graph(
    graphText(`  - id: deploy
    run: ./deploy.sh
  - id: lint
    run: npm run lint
    replay: safe
`),
  );

  describe('rule 3: recovery marks an attempt interrupted only when its executor is provably gone', () => {
    it('an in-flight attempt whose executor is gone becomes NodeInterrupted with its usage as a lower bound', () => {
      const sim = new Sim(g);
      sim.dispatch('deploy');
      const r = recoverEvents(sim.state, () => ({ gone: true, why: 'pid gone', observed_ms: 1234 }), 'rec');
      expect(r).toEqual({
        events: [
          {
            type: 'NodeInterrupted',
            node: 'deploy',
            attempt: 1,
            observed_usage: { wall_ms: 1234 },
            by: 'rec',
          },
        ],
        left: [],
      });
      sim.append(r.events);
      expect(sim.cp.active_nodes).toEqual([]);
      expect(sim.cp.usage).toEqual({ wall_ms: 1234, nodes: { deploy: 1234, lint: 0 } });
      expect(sim.cp.attempts).toEqual({ deploy: 1, lint: 0 });
    });

    it('an attempt whose executor may still be alive is left in flight', () => {
      const sim = new Sim(g);
      sim.dispatch('deploy');
      const r = recoverEvents(
        sim.state,
        () => ({ gone: false, why: 'pid 4242 is still running', observed_ms: 5 }),
        'rec',
      );
      expect(r).toEqual({ events: [], left: [{ node: 'deploy', why: 'pid 4242 is still running' }] });
    });
  });
  describe('rule 3: an interrupted safe node is ready again; a never node (the default) is held', () => {
    it('replay: never is the default, and the dispatch records it', () => {
      const sim = new Sim(g);
      expect(g.nodes[0]!.replay).toBe('never');
      sim.dispatch('deploy');
      expect(sim.journal.events[1]).toMatchObject({
        type: 'NodeDispatched',
        node: 'deploy',
        replay: 'never',
      });
    });

    it('an interrupted never node is held, not ready', () => {
      const sim = new Sim(g);
      sim.dispatch('deploy');
      sim.recover();
      expect(sim.cp.held_nodes).toEqual(['deploy']);
      expect(sim.cp.ready_nodes).toEqual(['lint']);
      sim.dispatch('lint');
      sim.succeed('lint');
      expect(sim.cp.status).toBe('blocked');
      expect(sim.next()).toEqual({
        kind: 'blocked',
        reason: 'held (needs approve-rerun or settle): deploy',
      });
    });

    it('an interrupted safe node is ready again as a new attempt, told it was interrupted', () => {
      const sim = new Sim(g);
      sim.dispatch('lint');
      sim.recover();
      expect(sim.cp.held_nodes).toEqual([]);
      expect(sim.cp.ready_nodes).toEqual(['deploy', 'lint']);
      expect(sim.cp.failed_nodes).toEqual([]);
      const d = sim.dispatch('lint');
      expect(d.attempt).toBe(2);
      expect(d.approach.label).toBe('default');
      expect(d.context.previous).toEqual({
        attempt: 1,
        interrupted: true,
        statement:
          'Attempt 1 was interrupted and may have partly run. Check the current state before repeating any of its work.',
        failures: [],
      });
    });

    it('an interruption does not use up a retry: a safe node still has both failures of its budget', () => {
      const sim = new Sim(g);
      sim.dispatch('lint');
      sim.recover();
      sim.dispatch('lint');
      sim.fail('lint');
      expect(sim.cp.escalated_nodes).toEqual([]);
      sim.dispatch('lint');
      sim.fail('lint');
      expect(sim.cp.escalated_nodes).toEqual(['lint']);
      expect(sim.cp.attempts.lint).toBe(3);
    });

    it('a node is rerun only when both its dispatch and the current graph say safe', () => {
      const never = graph(
        graphText('  - id: deploy\n    run: ./deploy.sh\n  - id: lint\n    run: npm run lint\n'),
      );
      const sim = new Sim(g);
      sim.dispatch('lint');
      sim.recover();
      // Same journal, read under a graph where lint is now `never`: it is held.
      const under = fold(sim.journal, never).checkpoint;
      expect(under.held_nodes).toEqual(['lint']);
      expect(under.ready_nodes).toEqual(['deploy']);
      // A dispatch that recorded `never` stays held under a graph that now says `safe`.
      const j = append(startJournal(g), [
        dispatchOf('lint', 1, 'never'),
        { type: 'NodeInterrupted', node: 'lint', attempt: 1, observed_usage: { wall_ms: 0 } },
      ]);
      expect(fold(j, g).checkpoint.held_nodes).toEqual(['lint']);
    });
  });
});

describe('rule 4: a held node leaves the hold only by NodeRecorded, RerunApproved or RunFailed', () => {
  const g = graph(
    graphText(`  - id: deploy
    run: ./deploy.sh
  - id: notify
    run: ./notify.sh
`),
  );
  const held = () => {
    const sim = new Sim(g);
    sim.dispatch('deploy');
    sim.recover();
    return sim;
  };

  it('a held node stays held while the rest of the run moves on', () => {
    const sim = held();
    sim.dispatch('notify');
    sim.succeed('notify');
    expect(sim.cp.held_nodes).toEqual(['deploy']);
    expect(sim.cp.ready_nodes).toEqual([]);
    expect(sim.cp.status).toBe('blocked');
  });

  it('no dispatch, failure, skip, interruption or plain record takes a node out of a hold', () => {
    const j = held().journal;
    const forged: Array<[NewEvent, string]> = [
      [dispatchOf('deploy', 2), 'node "deploy" is held; it cannot be dispatched'],
      [
        { type: 'NodeFailed', node: 'deploy', attempt: 1, failures: EXIT_1, usage: { wall_ms: 1 } },
        'node "deploy" attempt 1 is not in flight (it is held)',
      ],
      [
        { type: 'NodeSkipped', node: 'deploy', reason: 'x' },
        'node "deploy" already ran; it cannot be skipped',
      ],
      [
        { type: 'NodeInterrupted', node: 'deploy', attempt: 1, observed_usage: { wall_ms: 0 } },
        'node "deploy" attempt 1 is not in flight (it is held)',
      ],
      [
        {
          type: 'NodeRecorded',
          node: 'deploy',
          attempt: 1,
          evidence: [],
          outputs: {},
          usage: { wall_ms: 0 },
        },
        'node "deploy" attempt 1 is not in flight (it is held)',
      ],
    ];
    for (const [event, why] of forged) {
      expect(foldError(append(j, [event]), g)).toEqual({
        message: `event 4 (${event.type}): ${why}`,
        seq: 4,
      });
    }
  });

  it('a person recording the node (settle) ends the hold: the node is completed', () => {
    const sim = held();
    sim.settle('deploy', 'ann', 'the release is out');
    expect(sim.cp.held_nodes).toEqual([]);
    expect(sim.cp.completed_nodes).toEqual(['deploy']);
    expect(sim.journal.events.at(-1)).toMatchObject({
      type: 'NodeRecorded',
      node: 'deploy',
      attempt: 1,
      recorded_by: 'ann',
      note: 'the release is out',
      evidence: [{ check: 'person', passed: true, observed: 'ann: the release is out (test)' }],
    });
  });

  it('a named approval ends the hold: the node is ready for its next attempt', () => {
    const sim = held();
    sim.approve('deploy', 'bob');
    expect(sim.cp.held_nodes).toEqual([]);
    expect(sim.cp.ready_nodes).toEqual(['deploy', 'notify']);
    expect(sim.state.nodes.get('deploy')?.approvals).toEqual(['bob']);
    const d = sim.dispatch('deploy');
    expect(d.attempt).toBe(2);
    expect(d.context.previous?.interrupted).toBe(true);
  });

  it('RunFailed ends the run: the held node is never dispatched and can no longer be approved', () => {
    const sim = held();
    sim.failRun('ann', 'abandoned');
    expect(sim.cp.status).toBe('failed');
    expect(sim.cp.ready_nodes).toEqual([]);
    expect(
      approveRerun({
        run: sim,
        node: 'deploy',
        by: 'bob',
        source: 'test',
        graph_hash: sim.state.accepted_hash,
      }),
    ).toEqual({
      ok: false,
      reason: 'the run has already ended (RunFailed: abandoned)',
    });
  });

  it('approving a node that is not held or escalated is refused with the reason', () => {
    const sim = held();
    expect(
      approveRerun({
        run: sim,
        node: 'notify',
        by: 'bob',
        source: 'test',
        graph_hash: sim.state.accepted_hash,
      }),
    ).toEqual({
      ok: false,
      reason:
        'node "notify" is pending: it waits for its turn to run, not for a person; /approve-rerun answers only a held or escalated node',
    });
    expect(
      approveRerun({
        run: sim,
        node: 'deplo',
        by: 'bob',
        source: 'test',
        graph_hash: sim.state.accepted_hash,
      }),
    ).toEqual({
      ok: false,
      reason: '"deplo" is not a node of test (did you mean "deploy"?)',
    });
  });

  it('an approval names the attempt it settles; one naming another attempt is refused', () => {
    const sim = held();
    expect(
      approveRerun({
        run: sim,
        node: 'deploy',
        attempt: 2,
        by: 'bob',
        source: 'test',
        graph_hash: sim.state.accepted_hash,
      }),
    ).toEqual({
      ok: false,
      reason: 'the approval names attempt 2, but node "deploy" is waiting on attempt 1',
    });
    const forged = append(sim.journal, [
      { type: 'RerunApproved', node: 'deploy', attempt: 2, approved_by: 'bob', source: 'x' },
    ]);
    expect(foldError(forged, g).message).toBe(
      'event 4 (RerunApproved): approves attempt 2, but the last attempt is 1',
    );
  });

  it('a second approval of the same hold is refused: the node is no longer held', () => {
    const sim = held();
    sim.approve('deploy', 'bob');
    expect(
      approveRerun({
        run: sim,
        node: 'deploy',
        by: 'bob',
        source: 'test',
        graph_hash: sim.state.accepted_hash,
      }),
    ).toEqual({
      ok: false,
      reason:
        'node "deploy" is pending: its next attempt waits for its turn to run; /approve-rerun answers only a held or escalated node',
    });
  });
});

describe('rule 5: a failed attempt is retried at most twice, then the node is escalated', () => {
  const g = graph(
    graphText(`  - id: setup
    run: echo setup
  - id: fix
    run: ./fix.sh
    depends_on: [setup]
    retry:
      - description: again, verbose
        env: { VERBOSE: "1" }
      - description: ask the agent
        prompt: fix the failing test
        agent: claude -p
  - id: plain
    run: ./plain.sh
    depends_on: [setup]
`),
  );
  const afterSetup = () => {
    const sim = new Sim(g);
    sim.dispatch('setup');
    sim.succeed('setup');
    return sim;
  };
  const F1 = [{ check: 'file out.txt', message: 'out.txt does not exist' }];

  it('attempt 2 repeats the approach with the failure details in its context', () => {
    const sim = afterSetup();
    sim.dispatch('plain');
    sim.fail('plain', F1);
    expect(sim.cp.failed_nodes).toEqual(['plain']);
    expect(sim.cp.ready_nodes).toEqual(['fix', 'plain']);
    const d = sim.dispatch('plain');
    expect(d.attempt).toBe(2);
    expect(d.approach).toEqual({ label: 'default', run: './plain.sh', env: {}, timeout_minutes: 60 });
    expect(d.context).toEqual({
      run_id: 'test/local',
      node: 'plain',
      attempt: 2,
      approach: 'default',
      idempotency_key: 'test/local/plain',
      previous: {
        attempt: 1,
        interrupted: false,
        statement: 'Attempt 1 failed. Its failures are listed here; address them.',
        failures: F1,
      },
      guidance: [],
      // The task envelope: plain depends on setup, checks nothing and sets no output.
      checks: [],
      outputs: [],
      protected_paths: [sim.journal.graph.path, '.github/interlock.yml', '.interlock/'],
      earlier: [{ node: 'setup', status: 'completed', outputs: {} }],
    });
  });

  it('retry[0] overrides the fields of attempt 2', () => {
    const sim = afterSetup();
    sim.dispatch('fix');
    sim.fail('fix');
    const d = sim.dispatch('fix');
    expect(d.approach).toEqual({
      label: 'retry[0]',
      description: 'again, verbose',
      run: './fix.sh',
      env: { VERBOSE: '1' },
      timeout_minutes: 60,
    });
    expect(sim.journal.events.at(-1)).toMatchObject({
      type: 'NodeDispatched',
      attempt: 2,
      approach: 'retry[0]',
    });
  });

  it('attempt 3 uses retry[1], a different approach, and is told so', () => {
    const sim = afterSetup();
    for (let i = 0; i < 2; i++) {
      sim.dispatch('fix');
      sim.fail('fix', F1);
    }
    const d = sim.dispatch('fix');
    expect(d.attempt).toBe(3);
    expect(d.approach).toEqual({
      label: 'retry[1]',
      description: 'ask the agent',
      prompt: 'fix the failing test',
      agent: 'claude -p',
      // retry[1] builds on the node's own approach, not on retry[0]
      env: {},
      timeout_minutes: 60,
    });
    expect(d.context.previous?.statement).toBe(
      'Attempt 2 failed. Its failures are listed here; address them with this different approach.',
    );
  });

  it('a node without retry[1] is escalated when attempt 2 fails: there is no attempt 3', () => {
    const sim = afterSetup();
    sim.dispatch('plain');
    sim.fail('plain');
    sim.dispatch('plain');
    sim.fail('plain');
    expect(sim.cp.escalated_nodes).toEqual(['plain']);
    expect(sim.cp.ready_nodes).toEqual(['fix']);
    expect(sim.journal.events.at(-1)).toMatchObject({ type: 'NodeEscalated', node: 'plain' });
    expect(foldError(append(sim.journal, [dispatchOf('plain', 3)]), g).message).toBe(
      `event ${sim.journal.events.length + 1} (NodeDispatched): node "plain" is escalated; it cannot be dispatched`,
    );
  });

  it('after the last allowed attempt the node is escalated with a report of what was tried and what is needed', () => {
    const sim = afterSetup();
    const failures = [F1, EXIT_1, [{ check: 'timeout', message: 'killed after timeout_minutes 60' }]];
    for (const f of failures) {
      sim.dispatch('fix');
      sim.fail('fix', f);
    }
    expect(sim.cp.escalated_nodes).toEqual(['fix']);
    expect(sim.cp.attempts.fix).toBe(3);
    expect(sim.state.nodes.get('fix')?.report).toEqual({
      attempted: [
        { attempt: 1, approach: 'default', work: 'run: ./fix.sh' },
        { attempt: 2, approach: 'retry[0]', work: 'run: ./fix.sh' },
        { attempt: 3, approach: 'retry[1]', work: 'prompt to claude -p' },
      ],
      failed: failures.map((f, i) => ({ attempt: i + 1, failures: f })),
      approaches_tried: ['default', 'retry[0]', 'retry[1]'],
      needed:
        'A person decides: fix the cause and approve a rerun of "fix", settle it as done if its work is already in place, or fail the run.',
    });
  });

  it('escalation rolls the active node back to the most recent completed one; completed nodes stay', () => {
    const sim = afterSetup();
    sim.dispatch('plain');
    sim.succeed('plain');
    for (let i = 0; i < 3; i++) {
      sim.dispatch('fix');
      sim.fail('fix');
    }
    expect(sim.cp.rolled_back_to).toBe('plain');
    expect(sim.cp.completed_nodes).toEqual(['setup', 'plain']);
    expect(sim.cp.traversal_path).toEqual(['setup', 'plain']);
    expect(sim.cp.status).toBe('blocked');
    expect(sim.next()).toEqual({ kind: 'blocked', reason: 'escalated (needs a person): fix' });
  });

  it('an approved rerun of an escalated node gives exactly one more attempt, with the last approach', () => {
    const sim = afterSetup();
    for (let i = 0; i < 3; i++) {
      sim.dispatch('fix');
      sim.fail('fix');
    }
    sim.approve('fix', 'carol');
    expect(sim.cp.rolled_back_to).toBe('setup');
    const d = sim.dispatch('fix');
    expect([d.attempt, d.approach.label]).toEqual([4, 'retry[1]']);
    sim.fail('fix');
    expect(sim.cp.escalated_nodes).toEqual(['fix']);
  });

  it('a retry[1] identical to the node’s own approach is refused when the graph is loaded', () => {
    const text = graphText(`  - id: fix
    run: ./fix.sh
    retry:
      - env: { VERBOSE: "1" }
      - description: same again
        run: ./fix.sh
`);
    expect(() => graph(text)).toThrow(GraphError);
    expect(() => graph(text)).toThrow(
      /^graph\.yml:8:9: node "fix" retry\[1\] is the same approach as the node's own; attempt 3 must differ: give it another run, prompt or skill$/,
    );
  });
});

describe('rule 6: the checkpoint is a pure function of the journal; a changed graph needs permission', () => {
  const text = graphText(`  - id: a
    run: echo a
  - id: b
    run: echo b
    depends_on: [a]
    replay: safe
`);
  const g = graph(text);
  const scenario = () => {
    const sim = new Sim(g);
    sim.dispatch('a');
    sim.succeed('a', { url: 'https://example.com' }, 30);
    sim.dispatch('b');
    sim.recover(() => true, 12);
    sim.dispatch('b');
    sim.fail('b');
    return sim;
  };

  afterEach(() => {
    vi.useRealTimers();
  });

  describe('rule 6: the checkpoint is a pure function of the journal', () => {
    it('folding the same journal twice gives byte-identical JSON', () => {
      const j = scenario().journal;
      expect(checkpointJson(j, g)).toBe(checkpointJson(j, g));
      expect(JSON.parse(checkpointJson(j, g))).toEqual({
        run_id: 'test/local',
        graph: { name: 'test', hash: g.hash, path: 'graph.yml' },
        status: 'running',
        completed_nodes: ['a'],
        failed_nodes: ['b'],
        skipped_nodes: [],
        held_nodes: [],
        escalated_nodes: [],
        active_nodes: [],
        ready_nodes: ['b'],
        traversal_path: ['a'],
        attempts: { a: 1, b: 2 },
        usage: { wall_ms: 52, nodes: { a: 30, b: 22 } },
        rolled_back_to: null,
        ended: null,
        last_activity_at: '2024-01-01T00:00:07.000Z',
      });
    });

    it('a journal serialized and parsed again folds to the same bytes', () => {
      const j = scenario().journal;
      const again = parseJournal(serializeJournal(j), 'j.json');
      expect(again).toEqual(j);
      expect(checkpointJson(again, g)).toBe(checkpointJson(j, g));
    });

    it('the fold reads no clock: the same journal folds the same at another time', () => {
      const j = scenario().journal;
      vi.useFakeTimers({ toFake: ['Date'] });
      vi.setSystemTime(new Date('2030-05-05T00:00:00Z'));
      const first = checkpointJson(j, g);
      vi.setSystemTime(new Date('2031-06-06T12:34:56Z'));
      expect(checkpointJson(j, g)).toBe(first);
    });
  });
  describe('rule 6: a run goes on under a changed graph only when a named person allows it', () => {
    it('the graph hash is the same for the same graph however it is written, and differs when the work does', () => {
      const reformatted = graph(
        JSON.stringify({
          nodes: [
            { run: 'echo a', id: 'a' },
            { replay: 'safe', depends_on: ['a'], id: 'b', run: 'echo b' },
          ],
          name: 'test',
          interlock: 1,
        }),
        'graph.json',
      );
      expect(reformatted.hash).toBe(g.hash);
      expect(g.hash).toMatch(/^sha256:[0-9a-f]{64}$/);
      const withEnv = (env: string) => graph(graphText(`  - id: a\n    run: echo a\n    env: ${env}\n`));
      expect(withEnv('{ A: "1", B: "2" }').hash).toBe(withEnv('{ B: "2", A: "1" }').hash);
      expect(graph(text.replace('echo b', 'echo B')).hash).not.toBe(g.hash);
    });

    it('a run refuses to go on under a changed graph unless told to', () => {
      const changed = graph(text.replace('echo b', 'echo B'));
      const state = fold(scenario().journal, changed);
      expect(graphChange(changed, state, undefined)).toEqual({
        ok: false,
        reason: `the graph changed since the run started (${g.hash} → ${changed.hash}); pass --allow-graph-change to go on under the new graph (it is recorded), or start a new run id`,
      });
    });

    it('when told to, the run records who allowed the change and goes on under the new graph', () => {
      const changed = graph(text.replace('echo b', 'echo B'));
      const j = scenario().journal;
      const allowed = graphChange(changed, fold(j, changed), 'ann');
      expect(allowed).toEqual({
        ok: true,
        events: [{ type: 'GraphChangeAllowed', from: g.hash, to: changed.hash, by: 'ann' }],
      });
      const after = append(j, allowed.ok ? allowed.events : []);
      const state = fold(after, changed);
      expect(state.accepted_hash).toBe(changed.hash);
      expect(graphChange(changed, state, undefined)).toEqual({ ok: true, events: [] });
      expect(graphChange(g, state, undefined).ok).toBe(false);
    });

    it('the fold refuses a graph change that does not start from the graph the run is under', () => {
      const j = append(startJournal(g), [
        { type: 'GraphChangeAllowed', from: 'sha256:other', to: 'sha256:new', by: 'ann' },
      ]);
      expect(foldError(j, g).message).toBe(
        `event 2 (GraphChangeAllowed): changes the graph from sha256:other, but the run is under ${g.hash}`,
      );
    });
  });
});

describe('rule 7: a journal that does not parse or validate is refused and never overwritten', () => {
  const g = graph(graphText('  - id: a\n    run: echo a\n  - id: b\n    run: echo b\n'));
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'interlock-rule7-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });
  const valid = (): Journal => {
    const sim = new Sim(g);
    sim.dispatch('a');
    sim.succeed('a');
    return sim.journal;
  };

  it('text that is not JSON is refused, naming the file and the event where it breaks', () => {
    const text = serializeJournal(valid());
    const cut = text.slice(0, text.indexOf('"type":"NodeRecorded"') + 10);
    expect(() => parseJournal(cut, 'runs/x.json')).toThrow(JournalError);
    expect(() => parseJournal(cut, 'runs/x.json')).toThrow(
      "runs/x.json: the journal is not valid JSON at line 5 (event seq 3): Unterminated string; it was left untouched: restore it from a backup or the journal branch's history",
    );
  });

  it('a malformed event is refused, naming the file and the first bad event', () => {
    const j = valid() as unknown as { events: Array<Record<string, unknown>> };
    j.events[1] = { ...j.events[1], attempt: 'one' };
    j.events[2] = { ...j.events[2], type: 'NodeDone' };
    let error: JournalError | undefined;
    try {
      parseJournal(JSON.stringify(j), 'runs/x.json');
    } catch (e) {
      error = e as JournalError;
    }
    expect(error).toBeInstanceOf(JournalError);
    expect(error?.seq).toBe(2);
    expect(error?.message).toBe(
      'runs/x.json: event #2 (seq 2, type "NodeDispatched") is malformed: ✖ Invalid input: expected number, received string → at attempt',
    );
  });

  it('an event that breaks a rule is refused naming the file and the event, with nothing written', async () => {
    const file = join(dir, 'run.json');
    const bad = append(valid(), [dispatchOf('a', 2)]);
    const text = serializeJournal(bad);
    writeFileSync(file, text);
    const store = new FileStore(file);
    await expect(
      readRun(
        { graph: g, store, runId: bad.run_id, start: { intent: '', subject: '', inputs: {}, github: null } },
        RUNNER,
      ),
    ).rejects.toThrow(
      `${file}: event 4 (NodeDispatched): node "a" is completed; it cannot be dispatched; the journal was left untouched`,
    );
    expect(readFileSync(file, 'utf8')).toBe(text);
  });

  it('the file store refuses to read a corrupted journal and never writes over it', async () => {
    const file = join(dir, 'run.json');
    const corrupted = serializeJournal(valid()).replace('"NodeRecorded"', '"NodeRecorde"');
    writeFileSync(file, corrupted);
    const store = new FileStore(file);
    await expect(store.read()).rejects.toThrow(JournalError);
    // Neither a fresh start nor any version but the corrupted file's own can replace it.
    expect(await store.write(valid(), null, 'start')).toEqual({
      ok: false,
      conflict: `${file} changed since it was read`,
    });
    expect(await store.write(valid(), sha256(serializeJournal(valid())), 'next')).toEqual({
      ok: false,
      conflict: `${file} changed since it was read`,
    });
    expect(readFileSync(file, 'utf8')).toBe(corrupted);
  });
});

describe('the pre-check: execute_conditions', () => {
  const text = graphText(`  - id: deploy
    run: ./deploy.sh
    execute_conditions: ["fromJSON(inputs.flags).deploy"]
`);
  const g = graph(text);

  it('a condition that cannot be evaluated fails the pre-check, and the next attempt is pre-checked again', () => {
    const sim = new Sim(g, { flags: 'not json' });
    const first = sim.step();
    expect(first).toMatchObject({ kind: 'precheck-failed', node: 'deploy', attempt: 1 });
    expect(sim.journal.events.slice(1).map((e) => e.type)).toEqual(['NodeDispatched', 'NodeFailed']);
    expect(sim.journal.events[2]).toMatchObject({
      failures: [
        {
          check: 'execute_conditions',
          message:
            'condition "fromJSON(inputs.flags).deploy" could not be evaluated: Error parsing JSON when evaluating fromJson',
        },
      ],
    });
    // The work never runs while no condition has been true: attempt 2 fails its pre-check too, and escalates.
    const second = sim.step();
    expect(second).toMatchObject({ kind: 'precheck-failed', node: 'deploy', attempt: 2 });
    expect(sim.cp.escalated_nodes).toEqual(['deploy']);
  });

  it('after a failed pre-check, a node whose corrected condition is false is skipped', () => {
    const sim = new Sim(g, { flags: 'not json' });
    sim.step();
    const fixed = graph(text.replace('fromJSON(inputs.flags).deploy', "inputs.flags == 'deploy'"));
    const allowed = graphChange(fixed, fold(sim.journal, fixed), 'ann');
    const j = append(sim.journal, allowed.ok ? allowed.events : []);
    const state = fold(j, fixed);
    const next = decideNext(runOf(fixed, j, state), { runner: RUNNER });
    expect(next).toMatchObject({ kind: 'skip', node: 'deploy' });
    const after = fold(append(j, 'events' in next ? next.events : []), fixed).checkpoint;
    expect(after.skipped_nodes).toEqual(['deploy']);
  });

  it('a node that ran cannot be skipped afterwards', () => {
    const sim = new Sim(g, { flags: '{"deploy": true}' });
    sim.dispatch();
    sim.fail('deploy');
    expect(foldError(append(sim.journal, [{ type: 'NodeSkipped', node: 'deploy', reason: 'x' }]), g)).toEqual(
      {
        message: 'event 4 (NodeSkipped): node "deploy" already ran; it cannot be skipped',
        seq: 4,
      },
    );
  });
});
