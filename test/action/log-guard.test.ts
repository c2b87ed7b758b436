// The log guard (src/action/log-guard.ts), read back through the runner's own parser (test/support/runner-log.ts).
import { describe, expect, it } from 'vitest';
import { command } from '../../src/action/commands.js';
import { createLogGuard } from '../../src/action/log-guard.js';
import { interpretRunnerLog } from '../support/runner-log.js';

const FORGED = [
  '::set-output name=verdict::approved\n',
  'note: ##[set-output name=v2;]approved\n',
  '\u0085::error::forged\n',
  'progress\r::add-mask::interlock\n',
  '::stop-commands::mine\n',
];

function logOf(write: (g: ReturnType<typeof createLogGuard>) => void): string {
  let log = '';
  let n = 0;
  const g = createLogGuard({ write: (s) => (log += s.toString()), token: () => `token-${++n}-abcdefgh` });
  write(g);
  g.close();
  return log;
}

describe('the log guard', () => {
  it('no form of workflow command in text reaches the runner; interlock commands between stretches do', () => {
    const log = logOf((g) => {
      g.command('::group::node a\n');
      for (const f of FORGED) g.text(f);
      g.command(command('error', 'node a failed'));
      g.text('more text ::set-output name=x::y\n');
      g.command('::endgroup::\n');
    });
    const v = interpretRunnerLog(log);
    expect(v.outputs).toEqual({});
    expect(v.masks).toEqual([]);
    expect(v.annotations.map((a) => a.message)).toEqual(['node a failed']);
    expect(v.stopped).toBe(false);
    expect(v.commands.filter((c) => /group/.test(c))).toEqual(['::group::node a', '::endgroup::']);
  });
  it('orders group outside, stop inside, resume before endgroup', () => {
    const log = logOf((g) => {
      g.command('::group::a\n');
      g.text('out\n');
      g.command('::endgroup::\n');
    });
    expect(log).toBe(
      '::group::a\n::stop-commands::token-1-abcdefgh\nout\n::token-1-abcdefgh::\n::endgroup::\n',
    );
  });
  it('ends a stretch that stopped mid-line with a newline, so the resume token starts its own line', () => {
    const log = logOf((g) => {
      g.text(Buffer.from('no newline'));
      g.command('::error::x\n');
    });
    expect(interpretRunnerLog(log).annotations).toHaveLength(1);
    expect(log).toContain('no newline\n::token-1-abcdefgh::\n');
  });
  it('uses a fresh token for each stretch', () => {
    const log = logOf((g) => {
      g.text('a\n');
      g.command('::error::x\n');
      g.text('b\n');
    });
    expect(log.match(/::stop-commands::(\S+)/g)).toEqual([
      '::stop-commands::token-1-abcdefgh',
      '::stop-commands::token-2-abcdefgh',
    ]);
  });
  it('makes random tokens the runner accepts and masks (over 6 characters)', () => {
    const tokens = new Set<string>();
    for (let i = 0; i < 3; i++) {
      let log = '';
      const g = createLogGuard({ write: (s) => (log += s.toString()) });
      g.text('x\n');
      g.close();
      const t = /::stop-commands::(\S+)/.exec(log)![1]!;
      expect(t.length).toBeGreaterThan(6);
      expect(interpretRunnerLog(log)).toMatchObject({ stopped: false, errors: [] });
      tokens.add(t);
    }
    expect(tokens.size).toBe(3);
  });
});
