// `budget: { daily_usd }` in .github/interlock.yml: read as given, absent by default, and refused with a located
// error that names the field and what it must be.
import { describe, expect, it } from 'vitest';
import { parseConfig } from '../../src/config/load.js';

const parse = (text: string) => parseConfig('.github/interlock.yml', text);

describe('the daily cost cap in the routes file', () => {
  it('reads budget.daily_usd; without budget there is no cap', () => {
    expect(parse('budget: { daily_usd: 20 }\n').budget).toEqual({ daily_usd: 20 });
    expect(parse('routes: []\n').budget).toBeUndefined();
  });

  it.each([
    [
      'budget: { daily_usd: -3 }\n',
      '.github/interlock.yml:1:22: budget.daily_usd: -3 is out of range: it must be more than 0',
    ],
    [
      'budget:\n  daily: 20\n',
      '.github/interlock.yml:2:3: budget: unknown field "daily"; allowed: daily_usd',
    ],
    [
      'budget: { daily_usd: "20" }\n',
      '.github/interlock.yml:1:22: budget.daily_usd: expected number, got "20"',
    ],
    ['budget: 20\n', '.github/interlock.yml:1:9: budget: expected object, got 20'],
  ])('refuses %j with a located error', (text, error) => {
    expect(() => parse(text)).toThrow(error);
  });
});
