// A failed command's excerpt keeps what a retry needs: the error lines near the start and the last lines, ANSI
// stripped, within a few kB, and says where lines were cut (src/render/excerpt.ts).
import { describe, expect, it } from 'vitest';
import {
  EXCERPT_MAX_CHARS,
  excerptOf,
  fenceFor,
  OutputExcerpt,
  stripAnsi,
} from '../../src/render/excerpt.js';

// What `node test.js` prints when `assert.strictEqual(6, 5)` fails after 40 passing cases (Node 20).
const NODE_ASSERT = [
  '\x1b[32mrunning 40 tests\x1b[0m',
  ...Array.from({ length: 40 }, (_, i) => `ok ${i} - case ${i}`),
  'node:assert:90',
  '  throw new AssertionError(obj);',
  '  ^',
  '',
  'AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:',
  '',
  '6 !== 5',
  '',
  '    at Object.<anonymous> (/work/test.js:4:8)',
  ...Array.from(
    { length: 6 },
    (_, i) => `    at internal frame ${i} (node:internal/modules/cjs/loader:${1000 + i}:14)`,
  ),
  '  generatedMessage: true,',
  "  code: 'ERR_ASSERTION',",
  '  actual: 6,',
  '  expected: 5,',
  "  operator: 'strictEqual'",
  '}',
  '',
  'Node.js v20.20.2',
  '',
].join('\n');

describe('failure excerpt', () => {
  it('keeps the failing assertion, not only the last three lines of the stack trace', () => {
    const e = excerptOf(NODE_ASSERT)!;
    expect(e.text).toContain('AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:');
    expect(e.text).toContain('6 !== 5');
    expect(e.text).toContain('Node.js v20.20.2');
    expect(e.first_error).toBe(
      'AssertionError [ERR_ASSERTION]: Expected values to be strictly equal: 6 !== 5',
    );
  });

  it("the one-line message keeps the first differing values of a deep-equal diff, not the diff's legend", () => {
    const deep = [
      'AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal:',
      '+ actual - expected',
      '',
      '  {',
      '    a: 1,',
      '    b: [',
      '      1,',
      '+     2',
      '-     3',
      '    ]',
      '  }',
      '    at file:///tmp/b.mjs:2:8',
    ].join('\n');
    expect(excerptOf(deep)!.first_error).toBe(
      'AssertionError [ERR_ASSERTION]: Expected values to be strictly deep-equal: + 2 (actual), - 3 (expected)',
    );
  });

  it('says how many lines it cut, where it cut them', () => {
    const e = excerptOf(NODE_ASSERT)!;
    expect(e.cut).toBe(true);
    // The 41 passing lines before the error are not kept.
    expect(e.text.startsWith('[… 41 lines cut …]\nnode:assert:90')).toBe(true);
    expect(e.text).not.toContain('ok 3 - case 3');
  });

  it('keeps a short output whole, and says nothing was cut', () => {
    const e = excerptOf('building\nerror TS2322: Type "a" is not assignable\n')!;
    expect(e).toMatchObject({
      cut: false,
      text: 'building\nerror TS2322: Type "a" is not assignable',
      lines: 2,
    });
  });

  it('strips colours, cursor moves and titles; a line redrawn with \\r keeps its last drawing', () => {
    expect(stripAnsi('\x1b[31mFAIL\x1b[39m \x1b]0;title\x07x\r\n')).toBe('FAIL x\n');
    expect(stripAnsi('progress 10%\rprogress 100%')).toBe('progress 100%');
    expect(excerptOf('\x1b[1m\x1b[31m✗ sum adds\x1b[0m\n')!.text).toBe('✗ sum adds');
  });

  it(`stays within ${EXCERPT_MAX_CHARS} characters however long the output, fed in chunks`, () => {
    const ex = new OutputExcerpt();
    for (let i = 0; i < 20_000; i++)
      ex.push(`line ${i} ${'x'.repeat(i % 500)}\n${i === 10 ? 'Error: first\n' : ''}`);
    ex.push('no newline at the end, and very long: '.repeat(100));
    const e = ex.finish()!;
    expect(e.text.length).toBeLessThanOrEqual(EXCERPT_MAX_CHARS);
    expect(e.text).toContain('Error: first');
    expect(e.text).toContain('[line clipped]');
    expect(e.lines).toBe(20_002);
  });

  it('has nothing to say about no output', () => {
    expect(excerptOf('')).toBeUndefined();
    expect(excerptOf('\n\n')).toBeUndefined();
  });

  it('fences an excerpt with more backticks than it holds', () => {
    expect(fenceFor('plain')).toBe('```');
    expect(fenceFor('a ```` b')).toBe('`````');
  });
});
