// The journal never carries a secret of the step (issue 34): redactSecrets, the one pure function the commit
// calls on every event it writes.
import { describe, expect, it } from 'vitest';
import { MIN_SECRET_LENGTH, redactSecrets, SECRET_MARK } from '../../src/render/redact.js';

const SECRET = 'ghs_s3cretTokenValue42';
const b64 = (s: string) => Buffer.from(s).toString('base64');

describe('the journal never carries a secret: redactSecrets', () => {
  it('replaces a secret in any string, nested, and says where', () => {
    const events = [
      { type: 'NodeRecorded', node: 'a', outputs: { token: `x${SECRET}y`, ok: 'fine' } },
      {
        type: 'NodeFailed',
        node: 'b',
        failures: [{ check: 'exit', message: 'm', excerpt: `line\n${SECRET}` }],
      },
    ];
    const r = redactSecrets(events, [SECRET]);
    expect(JSON.stringify(r.value)).not.toContain(SECRET);
    expect(r.value[0]!.outputs).toEqual({ token: `x${SECRET_MARK}y`, ok: 'fine' });
    expect(r.found).toEqual(['0.outputs.token', '1.failures.0.excerpt']);
  });

  it('finds a secret as base64, at every alignment inside a longer encoding, standard and URL-safe', () => {
    for (const prefix of ['', 'a', 'ab', 'abc']) {
      const encoded = b64(`${prefix}${SECRET}!`);
      for (const text of [encoded, encoded.replace(/\+/g, '-').replace(/\//g, '_')]) {
        const r = redactSecrets({ v: text }, [SECRET]);
        expect(r.found, `${prefix}: ${text}`).toEqual(['v']);
      }
    }
  });

  it('removes the start of a secret where a text was cut short after it, anywhere in the text', () => {
    // A git check quotes a commit subject cut at 100 characters (src/evidence/local.ts), inside its sentence.
    const observed = `1 new commit(s) (tip abc): abc note ${SECRET.slice(0, 9)}…`;
    const r = redactSecrets({ message: `${observed}; it will be retried` }, [SECRET]);
    expect(r.value.message).toBe(`1 new commit(s) (tip abc): abc note ${SECRET_MARK}…; it will be retried`);
    expect(r.found).toEqual(['message']);
    // Fewer than four characters of it, or a cut that is not after it, are left as they are.
    for (const text of [`note ${SECRET.slice(0, 3)}…`, `note ${SECRET.slice(0, 9)} and more…`])
      expect(redactSecrets({ text }, [SECRET]).value.text).toBe(text);
  });

  it('drops a name that holds a secret, with its value', () => {
    const r = redactSecrets({ outputs: { [SECRET]: 'x', b: 'y' } }, [SECRET]);
    expect(r.value).toEqual({ outputs: { b: 'y' } });
    expect(r.found).toEqual(['outputs.(a name holding a secret, dropped)']);
  });

  it(`leaves values shorter than ${MIN_SECRET_LENGTH} characters alone, and what holds no secret unchanged`, () => {
    const v = { a: 'build', n: 3, ok: true, list: ['x'] };
    expect(redactSecrets(v, ['build', ''])).toEqual({ value: v, found: [] });
    expect(redactSecrets(v, [SECRET])).toEqual({ value: v, found: [] });
  });

  it('removes the longer of two overlapping secrets whole', () => {
    const r = redactSecrets({ v: `${SECRET}-suffix` }, [SECRET, `${SECRET}-suffix`]);
    expect(r.value.v).toBe(SECRET_MARK);
  });
});
