// What an attempt reported it used: Claude Code's JSON result (its documented shape, in test/fixtures/claude-code),
// the JSON a node writes to $INTERLOCK_USAGE, and what is ignored (with a warning) because it is malformed.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  attemptUsage,
  usageFromClaudeResult,
  usageFromFile,
} from '../../src/protocol/engines/reported-usage.js';

const fixture = (name: string) =>
  readFileSync(new URL(`../fixtures/claude-code/${name}`, import.meta.url), 'utf8');

describe('usage from a Claude Code result', () => {
  it('reads cost, turns, tokens (cached input included) and the models of an --output-format json result', () => {
    expect(usageFromClaudeResult(fixture('result.json'))).toEqual({
      usage: {
        input_tokens: 1204 + 15872 + 98304,
        output_tokens: 2311,
        cost_usd: 0.18372,
        turns: 7,
        model: 'claude-sonnet-4-5, claude-haiku-4-5',
      },
      warnings: [],
    });
  });

  it('reads the last "type":"result" line of --output-format stream-json', () => {
    expect(usageFromClaudeResult(fixture('stream.jsonl')).usage).toEqual({
      input_tokens: 310 + 8200 + 41000,
      output_tokens: 980,
      cost_usd: 0.0921,
      turns: 4,
      model: 'claude-sonnet-4-5',
    });
  });

  it('reports nothing, and warns about nothing, when the agent printed text', () => {
    expect(usageFromClaudeResult('I fixed the bug.\n{"not":"a result"}\n')).toEqual({
      usage: {},
      warnings: [],
    });
  });

  it('drops a malformed field with a warning and keeps the others', () => {
    const text = JSON.stringify({
      type: 'result',
      num_turns: -3,
      total_cost_usd: 0.5,
      usage: { output_tokens: 7 },
    });
    expect(usageFromClaudeResult(text)).toEqual({
      usage: { output_tokens: 7, cost_usd: 0.5 },
      warnings: ['the agent result: turns -3 ignored: expected a whole number, 0 or more'],
    });
  });
});

describe('usage from $INTERLOCK_USAGE', () => {
  const where = '$INTERLOCK_USAGE';

  it('keeps each reported field', () => {
    const text =
      '{"input_tokens": 900, "output_tokens": 120, "cost_usd": 0.031, "turns": 3, "model": "gpt-5-codex"}';
    expect(usageFromFile(text, where)).toEqual({
      usage: { input_tokens: 900, output_tokens: 120, cost_usd: 0.031, turns: 3, model: 'gpt-5-codex' },
      warnings: [],
    });
  });

  it('reports nothing when the node wrote nothing', () => {
    expect(usageFromFile('', where)).toEqual({ usage: {}, warnings: [] });
  });

  it('ignores text that is not JSON, with a warning naming the file', () => {
    const r = usageFromFile('cost: 3 dollars', where);
    expect(r.usage).toEqual({});
    expect(r.warnings).toHaveLength(1);
    expect(r.warnings[0]).toMatch(/^\$INTERLOCK_USAGE: not JSON \(.+\); its usage was ignored$/);
  });

  it('ignores JSON that is not an object', () => {
    expect(usageFromFile('[1, 2]', where).warnings).toEqual([
      '$INTERLOCK_USAGE: expected a JSON object such as {"cost_usd": 0.42, "turns": 7}; its usage was ignored',
    ]);
  });

  it('drops wrong values and unknown fields with warnings, and keeps the rest', () => {
    const r = usageFromFile(
      '{"cost_usd": "0.4", "turns": 2.5, "tokens": 10, "output_tokens": 5, "model": "a\\nb"}',
      where,
    );
    expect(r).toEqual({
      usage: { output_tokens: 5 },
      warnings: [
        '$INTERLOCK_USAGE: cost_usd "0.4" ignored: expected a number of dollars, 0 or more',
        '$INTERLOCK_USAGE: turns 2.5 ignored: expected a whole number, 0 or more',
        '$INTERLOCK_USAGE: model "a\\nb" ignored: expected a model name (text of 1 to 200 characters, one line)',
        '$INTERLOCK_USAGE: unknown field "tokens" ignored (known: input_tokens, output_tokens, cost_usd, turns, model)',
      ],
    });
  });
});

describe("an attempt's usage", () => {
  it('is the measured wall time with the readings laid over it, a later reading winning', () => {
    const agent = usageFromClaudeResult(fixture('stream.jsonl'));
    const file = usageFromFile('{"cost_usd": 0.5}', '$INTERLOCK_USAGE');
    expect(attemptUsage(1234, agent, file)).toEqual({ wall_ms: 1234, ...agent.usage, cost_usd: 0.5 });
  });
});
