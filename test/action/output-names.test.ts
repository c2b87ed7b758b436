// Output names follow the node id pattern: in $INTERLOCK_OUTPUT, in the journal, in the runner's files.
import { describe, expect, it } from 'vitest';
import { fileCommand } from '../../src/action/commands.js';
import { splitOutputs } from '../../src/journal/events/output-name.js';
import { appendEvents, parseJournal, serializeJournal } from '../../src/journal/parse.js';
import { parseOutputFile } from '../../src/protocol/attempt/output-file.js';
import { VALID } from '../core/journal-fixtures.js';

describe('output names', () => {
  it('a bad name in $INTERLOCK_OUTPUT fails the attempt with the rule; good names are kept', () => {
    const raw = parseOutputFile('ok=1\nalso-ok<<EOF\ntwo\nEOF\n.x<<=forged\n');
    expect(splitOutputs(raw)).toEqual({
      outputs: { 'also-ok': 'two', ok: '1' },
      failures: [
        {
          check: 'outputs',
          message:
            'output name ".x" was refused: output names use letters, digits, "_" and "-", start with a letter or "_", at most 64 characters (fix the name the command writes to $INTERLOCK_OUTPUT)',
        },
      ],
    });
  });
  it('the journal refuses a NodeRecorded whose output name breaks the rule', () => {
    const bad = appendEvents(
      VALID,
      [
        {
          type: 'NodeRecorded',
          node: 'b',
          attempt: 1,
          evidence: [],
          outputs: { 'x<<': 'v' },
          usage: { wall_ms: 1 },
        },
      ],
      '2024-01-01T00:00:01.000Z',
    );
    expect(() => parseJournal(serializeJournal(bad), 'demo')).toThrow(/outputs\["x<<"\]/);
  });
  it('no name that could break a runner file is written to one', () => {
    for (const name of ['output-.x<<', 'a=b', 'a\nb', ''])
      expect(() => fileCommand(name, 'v')).toThrow(/cannot be written/);
    expect(fileCommand('output-ok', 'v')).toMatch(/^output-ok<<ghadelimiter_/);
  });
});
