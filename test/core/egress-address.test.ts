// Which address an allowed name may lead to (issue 34): never a loopback, link-local (the cloud metadata service),
// private, shared, multicast, unspecified or reserved one unless that address is itself on network.allow. Pure:
// the proxy (src/os/proxies/egress-proxy.ts) connects to the address picked here and looks the name up no second time.
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
