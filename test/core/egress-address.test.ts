// Which address an allowed name may lead to (issue 34): never a loopback, link-local (the cloud metadata service),
// private, shared, multicast, unspecified or reserved one unless that address is itself on network.allow. Pure:
// the proxy (src/os/proxies/egress-proxy.ts) connects to the address picked here and looks the name up no second time.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { addressKind, egressAddress, egressPick } from '../../src/protocol/attempt/egress.js';

describe('egress rule: a name leads to a loopback, link-local or private address only when that address is listed', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.0.9', 'loopback'],
    ['::1', 'loopback'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['febf:ffff::1', 'link-local'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['fc00::1', 'private'],
    ['fd12:3456::1', 'private'],
    ['100.64.0.1', 'shared (CGNAT)'],
    ['100.127.255.254', 'shared (CGNAT)'],
    ['224.0.0.1', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['255.255.255.255', 'reserved'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['64:ff9b::10.0.0.1', 'private'],
  ])('%s is %s', (address, kind) => {
    expect(addressKind(address)).toBe(kind);
  });

  it.each([
    '93.184.215.14',
    '172.15.255.255',
    '172.32.0.1',
    '100.63.255.255',
    '100.128.0.1',
    '169.253.1.1',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
  ])('%s is a public address', (address) => {
    expect(addressKind(address)).toBeUndefined();
  });

  it('picks a public answer of an allowed name', () => {
    expect(egressAddress(['api.example.com'], 443, ['93.184.215.14'])).toEqual({ address: '93.184.215.14' });
  });
  it('refuses an allowed name whose only answers are loopback, link-local or private', () => {
    expect(egressAddress(['api.example.com'], 443, ['127.0.0.1', '::1'])).toEqual({
      refused: { address: '127.0.0.1', kind: 'loopback' },
    });
    expect(egressAddress(['*.example.com'], 80, ['169.254.169.254'])).toEqual({
      refused: { address: '169.254.169.254', kind: 'link-local' },
    });
  });
  it('skips a private answer for a public one of the same name, and connects to that one', () => {
    expect(egressAddress(['api.example.com'], 443, ['10.0.0.5', '93.184.215.14'])).toEqual({
      address: '93.184.215.14',
    });
  });
  it('reaches a private answer when that address is listed itself, on its port when one is named', () => {
    expect(egressAddress(['localhost', '127.0.0.1'], 8080, ['::1', '127.0.0.1'])).toEqual({
      address: '127.0.0.1',
    });
    expect(egressAddress(['localhost', '127.0.0.1:9'], 8080, ['127.0.0.1'])).toEqual({
      refused: { address: '127.0.0.1', kind: 'loopback' },
    });
    expect(egressAddress(['localhost', '[::1]'], 8080, ['::1'])).toEqual({ address: '::1' });
  });
  it('a suffix pattern never lists an address', () => {
    expect(egressAddress(['*.0.0.1', 'x.example'], 80, ['127.0.0.1'])).toEqual({
      refused: { address: '127.0.0.1', kind: 'loopback' },
    });
  });
  it('refuses a name with no answer', () => {
    expect(egressAddress(['x.example'], 80, [])).toEqual({ refused: undefined });
  });
  it('says which address and range, and the line that would allow it', () => {
    expect(egressPick('fetch', ['metadata.example'], 'metadata.example', 80, ['169.254.169.254'])).toEqual({
      refusal:
        'interlock: node "fetch" may not reach metadata.example:80: it resolves to 169.254.169.254, a link-local address, which a name leads to only when that address is listed itself. To allow it, add 169.254.169.254 to network.allow.\n',
    });
  });
});

/** An IPv6 address from 16 bytes, in the shortest form a resolver might answer with (hostName reads any form). */
const v6 = (b: number[]) =>
  Array.from({ length: 8 }, (_, i) => ((b[2 * i]! << 8) | b[2 * i + 1]!).toString(16)).join(':');

/** Every IPv6 form that embeds an IPv4 address, each making the address from its four bytes and some free bits. */
const FORMS: { name: string; make: (v4: number[], free: number[]) => number[] }[] = [
  { name: 'IPv4-mapped ::ffff:0:0/96', make: (v) => [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, ...v] },
  { name: 'IPv4-translated ::ffff:0:0:0/96', make: (v) => [0, 0, 0, 0, 0, 0, 0, 0, 255, 255, 0, 0, ...v] },
  { name: 'NAT64 64:ff9b::/96', make: (v) => [0, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0, ...v] },
  {
    name: 'local NAT64 64:ff9b:1::/48 cut at /48',
    make: (v, f) => [
      0,
      0x64,
      0xff,
      0x9b,
      0,
      1,
      v[0]!,
      v[1]!,
      0,
      v[2]!,
      v[3]!,
      f[0]!,
      f[1]!,
      f[2]!,
      f[3]!,
      f[4]!,
    ],
  },
  {
    name: 'local NAT64 64:ff9b:1::/48 cut at /56',
    make: (v, f) => [
      0,
      0x64,
      0xff,
      0x9b,
      0,
      1,
      f[0]!,
      v[0]!,
      0,
      v[1]!,
      v[2]!,
      v[3]!,
      f[1]!,
      f[2]!,
      f[3]!,
      f[4]!,
    ],
  },
  {
    name: 'local NAT64 64:ff9b:1::/48 cut at /64',
    make: (v, f) => [0, 0x64, 0xff, 0x9b, 0, 1, f[0]!, f[1]!, 0, ...v, f[2]!, f[3]!, f[4]!],
  },
  {
    name: 'local NAT64 64:ff9b:1::/48 cut at /96',
    make: (v, f) => [0, 0x64, 0xff, 0x9b, 0, 1, f[0]!, f[1]!, f[2]!, f[3]!, f[4]!, f[5]!, ...v],
  },
  { name: '6to4 2002::/16', make: (v, f) => [0x20, 0x02, ...v, ...f.slice(0, 10)] },
  {
    name: "Teredo 2001::/32 (the client's address, inverted)",
    make: (v, f) => [0x20, 0x01, 0, 0, ...f.slice(0, 8), ...v.map((x) => x ^ 255)],
  },
];

const byte = fc.integer({ min: 0, max: 255 });
/** IPv4 addresses in a range a name may not lead to, with that range. */
const NOT_PUBLIC: [string, fc.Arbitrary<number[]>][] = [
  ['loopback', fc.tuple(fc.constant(127), byte, byte, byte)],
  ['link-local', fc.tuple(fc.constant(169), fc.constant(254), byte, byte)],
  ['private', fc.tuple(fc.constant(10), byte, byte, byte)],
  ['private', fc.tuple(fc.constant(172), fc.integer({ min: 16, max: 31 }), byte, byte)],
  ['private', fc.tuple(fc.constant(192), fc.constant(168), byte, byte)],
  ['shared (CGNAT)', fc.tuple(fc.constant(100), fc.integer({ min: 64, max: 127 }), byte, byte)],
];

describe('egress rule: an IPv6 form that embeds an IPv4 address is refused as that IPv4 address is', () => {
  it.each(FORMS.map((f) => [f.name, f] as const))(
    '%s: every embedded loopback, link-local, private or shared address',
    (_n, form) => {
      for (const [kind, v4] of NOT_PUBLIC)
        fc.assert(
          fc.property(v4, fc.array(byte, { minLength: 12, maxLength: 12 }), (v, free) => {
            const address = v6(form.make(v, free));
            // Where the local-use NAT64 prefix leaves the place open, the network's own bits may read as another
            // range: refused all the same; with those bits zero, as the embedded address's range.
            const open = form.name.startsWith('local NAT64');
            if (open) expect(addressKind(v6(form.make(v, Array(12).fill(0))))).toBe(kind);
            const got = addressKind(address);
            if (open) expect(got, address).toBeDefined();
            else expect(got, address).toBe(kind);
            expect(egressAddress(['api.example.com'], 443, [address])).toEqual({
              refused: { address, kind: got },
            });
          }),
          { seed: 46, numRuns: 50 },
        );
    },
  );

  it.each([
    ['::ffff:0:7f00:1', 'loopback'],
    ['::127.0.0.1', 'loopback'],
    ['::10.0.0.1', 'private'],
    ['64:ff9b:1::a9fe:a9fe', 'link-local'],
    ['64:ff9b:1:7f00:1::', 'loopback'],
    ['2002:a9fe:a9fe::1', 'link-local'],
    ['2002:7f00:1::', 'loopback'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', undefined], // RFC 4380's example: client 192.0.2.45... public
    ['2001:0:4136:e378:8000:63bf:80ff:fffe', 'loopback'], // client 127.0.0.1
  ])('%s is %s', (address, kind) => {
    expect(addressKind(address)).toBe(kind);
  });

  it.each(['64:ff9b::808:808', '64:ff9b:1::808:808', '2002:808:808::1', '::ffff:0:808:808'])(
    '%s (8.8.8.8 inside) is a public address',
    (address) => {
      expect(addressKind(address)).toBeUndefined();
    },
  );

  it('an IPv4-compatible address with a public IPv4 address inside is still reserved (the form is deprecated)', () => {
    expect(addressKind('::8.8.8.8')).toBe('reserved');
  });

  it('reaches an embedded private address only when that IPv6 address is listed itself', () => {
    expect(egressAddress(['api.example.com', '[2002:a00:1::1]'], 443, ['2002:a00:1::1'])).toEqual({
      address: '2002:a00:1::1',
    });
  });
});
