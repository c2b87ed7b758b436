// The runner port's own cases, taken from what actions/runner's L0 tests check (ActionCommandL0,
// ActionCommandManagerL0, SetOutputFileCommandL0), plus the .NET whitespace the runner trims.
import { describe, expect, it } from 'vitest';
import { parseLegacy, parseRunnerFile, parseV2, RUNNER_COMMANDS } from './runner-commands.js';
import { interpretRunnerLog } from './runner-log.js';

const ANY = new Set(['do-something', ...RUNNER_COMMANDS]);

describe('legacy ##[command] (TryParse)', () => {
  it('reads the name, properties and data', () => {
    expect(parseLegacy('##[do-something k1=v1;]msg', ANY)).toEqual({
      command: 'do-something',
      properties: { k1: 'v1' },
      data: 'msg',
    });
  });
  it('unescapes %3B %0D %0A %5D, and %25 last', () => {
    expect(parseLegacy('##[do-something k1=%3B=%0D=%0A=%5D;]%3B-%0D-%0A-%5D', ANY)).toMatchObject({
      properties: { k1: ';=\r=\n=]' },
      data: ';-\r-\n-]',
    });
    expect(parseLegacy('##[do-something k1=%253B=%250D;]%253B-%250A', ANY)).toMatchObject({
      properties: { k1: '%3B=%0D' },
      data: '%3B-%0A',
    });
  });
  it('drops properties with an empty value', () => {
    expect(parseLegacy('##[do-something k1=;k2=;]', ANY)?.properties).toEqual({});
  });
  it('is found anywhere in the line', () => {
    expect(parseLegacy('>>>   ##[do-something k1=v1;]msg', ANY)?.data).toBe('msg');
    expect(parseLegacy('note: ##[set-output name=verdict;]approved', ANY)).toMatchObject({
      command: 'set-output',
      properties: { name: 'verdict' },
      data: 'approved',
    });
  });
  it('ignores names that are not registered, and matches registered ones ignoring case', () => {
    expect(parseLegacy('##[not-a-command]x', ANY)).toBeUndefined();
    expect(parseLegacy('##[SET-OUTPUT Name=x]y', ANY)).toMatchObject({
      properties: { name: 'x' },
      data: 'y',
    });
  });
});

describe('::command:: (TryParseV2)', () => {
  it('reads the name, properties and data', () => {
    expect(parseV2('::do-something k1=v1,::msg', ANY)).toEqual({
      command: 'do-something',
      properties: { k1: 'v1' },
      data: 'msg',
    });
    expect(parseV2('::do-something::', ANY)).toEqual({ command: 'do-something', properties: {}, data: '' });
  });
  it('unescapes properties (%2C %3A too) and data', () => {
    expect(parseV2('::do-something k1=;=%2C=%0D=%0A=]=%3A,::;-%0D-%0A-]-:-,', ANY)).toMatchObject({
      properties: { k1: ';=,=\r=\n=]=:' },
      data: ';-\r-\n-]-:-,',
    });
    expect(parseV2('::do-something k1=;=%252C=%250D=%250A=]=%253A,::;-%250D-%250A-]-:-,', ANY)).toMatchObject(
      {
        properties: { k1: ';=%2C=%0D=%0A=]=%3A' },
        data: ';-%0D-%0A-]-:-,',
      },
    );
  });
  it('needs the command at the start of the line, after whitespace only', () => {
    expect(parseV2('   ::do-something k1=v1,::msg', ANY)?.data).toBe('msg');
    expect(parseV2('   >>>   ::do-something k1=v1,::msg', ANY)).toBeUndefined();
  });
  it.each([
    ['U+0085 (next line)', '\u0085'],
    ['U+2028 (line separator)', '\u2028'],
    ['U+2029', '\u2029'],
    ['U+00A0', '\u00a0'],
    ['U+3000', '\u3000'],
    ['a vertical tab', '\v'],
  ])('trims %s as .NET TrimStart does', (_name, ws) => {
    expect(parseV2(`${ws}::error::forged`, ANY)).toMatchObject({ command: 'error', data: 'forged' });
  });
  it('does not trim what .NET does not call whitespace (U+200B, U+FEFF)', () => {
    expect(parseV2('\u200b::error::x', ANY)).toBeUndefined();
    expect(parseV2('\ufeff::error::x', ANY)).toBeUndefined();
  });
  it('matches names ignoring case', () => {
    expect(parseV2('::Add-Mask::s3cret', ANY)).toMatchObject({ command: 'Add-Mask', data: 's3cret' });
  });
});

describe('stop-commands (ActionCommandManager)', () => {
  it('ignores every command until the token comes back, then resumes', () => {
    const v = interpretRunnerLog(
      [
        '::stop-commands::stopToken',
        '::set-output name=a::1',
        '##[error]x',
        '::stopToken::',
        '::set-output name=b::2',
      ].join('\n'),
    );
    expect(v.outputs).toEqual({ b: '2' });
    expect(v.annotations).toEqual([]);
    expect(v.stopped).toBe(false);
  });
  it('resumes on the legacy form of the token and ignoring case', () => {
    expect(
      interpretRunnerLog('##[stop-commands]Tok12345\n##[tok12345]\n::error::e').annotations,
    ).toHaveLength(1);
  });
  it('stays stopped when the token never comes', () => {
    const v = interpretRunnerLog('::stop-commands::abcdefgh\n::add-mask::x\n');
    expect(v).toMatchObject({ stopped: true, stopToken: 'abcdefgh', masks: [] });
  });
  it.each(['stop-commands', '', 'set-env', 'PAUSE-LOGGING'])('refuses the token "%s"', (token) => {
    expect(interpretRunnerLog(`::stop-commands::${token}\n`).errors).toEqual([
      `stop-commands with an invalid token "${token}"`,
    ]);
  });
  it('reads \\r as the end of a line, as StreamReader.ReadLine does', () => {
    expect(interpretRunnerLog('progress 50%\r::set-output name=x::y\n').outputs).toEqual({ x: 'y' });
  });
});

describe('GITHUB_OUTPUT (FileCommandManager)', () => {
  it('reads name=value and name<<DELIM', () => {
    expect(parseRunnerFile('a=1\nb<<EOF\nline 1\nline 2\nEOF\nc=\n')).toEqual({
      pairs: [
        ['a', '1'],
        ['b', 'line 1\nline 2'],
        ['c', ''],
      ],
    });
  });
  it('fails on a delimiter that never comes, keeping the pairs before it', () => {
    expect(parseRunnerFile('a=1\noutput-.x<<<<ghadelimiter_1\nv\nghadelimiter_1\n')).toEqual({
      pairs: [['a', '1']],
      error: "Invalid value. Matching delimiter not found '<<ghadelimiter_1'",
    });
  });
  it('fails on a line with neither = nor <<', () => {
    expect(parseRunnerFile('oops\n').error).toBe("Invalid format 'oops'");
  });
  it('splits at the first = when it comes before <<', () => {
    expect(parseRunnerFile('a=b<<c\n').pairs).toEqual([['a', 'b<<c']]);
  });
});
