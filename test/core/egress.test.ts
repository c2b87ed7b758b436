// The egress allowlist's rules (issue 27), as data: which host a `network.allow` entry admits, on which port, and
// the located error a bad entry gets at load. No I/O: the proxy (src/os/proxies/egress-proxy.ts) asks these functions.
import { describe, expect, it } from 'vitest';
import { GraphError } from '../../src/graph/errors.js';
import { parseGraph } from '../../src/graph/load/load.js';
import { hostName, hostPattern } from '../../src/graph/schema/network.js';
import {
  ConnectionTally,
  connectionWords,
  egressDecision,
  egressRefusal,
} from '../../src/protocol/attempt/egress.js';

const allowed = (allow: string[], host: string, port = 443) => egressDecision(allow, host, port).allowed;

describe('egress rule: a request is allowed only when an entry of network.allow admits its host and port', () => {
  it('admits a listed name on any port, and no other name', () => {
    expect(allowed(['registry.npmjs.org'], 'registry.npmjs.org')).toBe(true);
    expect(allowed(['registry.npmjs.org'], 'registry.npmjs.org', 8080)).toBe(true);
    expect(allowed(['registry.npmjs.org'], 'REGISTRY.npmjs.org.')).toBe(true);
    expect(allowed(['registry.npmjs.org'], 'npmjs.org')).toBe(false);
    expect(allowed(['registry.npmjs.org'], 'registry.npmjs.org.evil.example')).toBe(false);
    expect(allowed(['registry.npmjs.org'], 'evilregistry.npmjs.org')).toBe(false);
  });
  it('admits only the port an entry names, when it names one', () => {
    expect(allowed(['example.com:443'], 'example.com', 443)).toBe(true);
    expect(allowed(['example.com:443'], 'example.com', 80)).toBe(false);
  });
  it('admits every subdomain with *., but not the domain itself', () => {
    expect(allowed(['*.example.com'], 'a.example.com')).toBe(true);
    expect(allowed(['*.example.com'], 'a.b.example.com')).toBe(true);
    expect(allowed(['*.example.com'], 'example.com')).toBe(false);
    expect(allowed(['*.example.com'], 'aexample.com')).toBe(false);
  });
  it('admits an IP address only when that address is listed: a name never stands for its addresses', () => {
    expect(allowed(['127.0.0.2'], '127.0.0.2')).toBe(true);
    expect(allowed(['127.0.0.2'], '127.0.0.3')).toBe(false);
    expect(allowed(['localhost'], '127.0.0.1')).toBe(false);
    expect(allowed(['*.example.com'], '93.184.215.14')).toBe(false);
  });
  it('reads IPv6 in any spelling, and an IPv4-mapped address is not the IPv4 one', () => {
    expect(allowed(['[::1]'], '::1')).toBe(true);
    expect(allowed(['[::1]:8080'], '0:0:0:0:0:0:0:1', 8080)).toBe(true);
    expect(allowed(['::1'], '[0000::0001]')).toBe(true);
    expect(allowed(['127.0.0.2'], '::ffff:127.0.0.2')).toBe(false);
    expect(allowed(['127.0.0.2'], '::1')).toBe(false);
  });
  it('refuses what resolvers would read as an address in disguise', () => {
    for (const host of ['2130706433', '127.1', '0x7f.0.0.1', '0177.0.0.1', '127.0.0.02', '1.2.3.4.5'])
      expect(egressDecision(['127.0.0.1', '*.0.1', 'example.com'], host, 80), host).toEqual({
        host: host.toLowerCase(),
        allowed: false,
      });
  });
  it('refuses a host that is no host at all, and ports out of range', () => {
    expect(allowed(['example.com'], 'exa mple.com')).toBe(false);
    expect(allowed(['example.com'], '')).toBe(false);
    expect(allowed(['example.com'], 'example.com', 0)).toBe(false);
    expect(allowed(['example.com'], 'example.com', 70000)).toBe(false);
  });
  it('allows nothing under an empty list', () => {
    expect(allowed([], 'example.com')).toBe(false);
  });
  it('journals the host as read: lowercased, IPv6 in full form', () => {
    expect(egressDecision([], 'Example.COM', 80).host).toBe('example.com');
    expect(hostName('[::1]')).toEqual({ kind: 'ipv6', host: '0000:0000:0000:0000:0000:0000:0000:0001' });
  });
});

describe('egress refusal: the 403 names the host and the network.allow fix', () => {
  it('says which node, which host, and the entry to add', () => {
    expect(egressRefusal('build', 'evil.example', 443)).toBe(
      'interlock: node "build" may not reach evil.example:443: it is not in the node\'s network.allow. To allow it, add evil.example to network.allow (on the node, or in defaults.network).\n',
    );
  });
  it('says when what was asked for is no host', () => {
    expect(egressRefusal('build', '2130706433', 80)).toContain('which is no host name or IP address');
  });
});

describe('connections: each host and port counted once per decision, in a stable order', () => {
  it('counts and lists', () => {
    const t = new ConnectionTally();
    t.add('b.example', 443, true);
    t.add('a.example', 80, false);
    t.add('b.example', 443, true);
    expect(t.list()).toEqual([
      { host: 'a.example', port: 80, allowed: false, count: 1 },
      { host: 'b.example', port: 443, allowed: true, count: 2 },
    ]);
    expect(connectionWords(t.list())).toBe('a.example:80 refused ×1, b.example:443 allowed ×2');
    expect(connectionWords([])).toBe('no connection asked for');
  });
});

const H = 'interlock: 1\nname: demo\n';
function loadErrors(text: string): string[] {
  try {
    parseGraph({ path: 'graph.yml', text });
  } catch (e) {
    expect(e).toBeInstanceOf(GraphError);
    return (e as Error).message.split('\n');
  }
  throw new Error('the graph loaded without errors');
}

describe('network: in a graph', () => {
  it('gives each node its own network, else the default one, and none without either', () => {
    const g = parseGraph({
      path: 'graph.yml',
      text: `${H}defaults:\n  network: { allow: [registry.npmjs.org] }\nnodes:\n  - id: a\n    run: make\n  - id: b\n    run: make\n    network: { allow: ["*.github.com", "127.0.0.2:8080"] }\n`,
    });
    expect(g.nodes.map((n) => n.network)).toEqual([
      { allow: ['registry.npmjs.org'] },
      { allow: ['*.github.com', '127.0.0.2:8080'] },
    ]);
    const open = parseGraph({ path: 'graph.yml', text: `${H}nodes:\n  - id: a\n    run: make\n` });
    expect(open.nodes[0]!.network).toBeUndefined();
  });
  it('changes the graph hash only when present', () => {
    const plain = parseGraph({ path: 'graph.yml', text: `${H}nodes:\n  - id: a\n    run: make\n` });
    const netted = parseGraph({
      path: 'graph.yml',
      text: `${H}nodes:\n  - id: a\n    run: make\n    network: { allow: [] }\n`,
    });
    expect(netted.hash).not.toBe(plain.hash);
    expect(plain.hash).toBe(
      parseGraph({ path: 'graph.yml', text: `${H}nodes:\n  - id: a\n    run: make\n` }).hash,
    );
  });
  const FIX =
    'write a host name (registry.npmjs.org), every subdomain of one (*.githubusercontent.com), or an IP address (127.0.0.2, [::1]), each with an optional :port';
  it.each([
    ['a URL', 'https://registry.npmjs.org', `"https://registry.npmjs.org" is a URL, not a host: ${FIX}`],
    ['a path', 'example.com/x', `"example.com/x" is not a host: ${FIX}`],
    ['a bad port', 'example.com:99999', `"example.com:99999" has port "99999", not 1 to 65535: ${FIX}`],
    ['a bare *', '*', `"*" has a \`*\` that is not the first label (\`*.example.com\`): ${FIX}`],
    [
      '*. over a top-level name',
      '*.com',
      `"*.com" is a wildcard over no domain (\`*.\` comes before a domain such as example.com): ${FIX}`,
    ],
    [
      'a * inside',
      'a.*.com',
      `"a.*.com" has a \`*\` that is not the first label (\`*.example.com\`): ${FIX}`,
    ],
    ['a numeric name', '2130706433', `"2130706433" is not a host name or IP address: ${FIX}`],
    ['an underscore', 'my_host.example', `"my_host.example" is not a host name or IP address: ${FIX}`],
  ])('refuses %s in network.allow, naming the place and the fix', (_name, entry, message) => {
    expect(hostPattern(entry)).toBe(message);
    expect(
      loadErrors(`${H}nodes:\n  - id: a\n    run: make\n    network:\n      allow:\n        - "${entry}"\n`),
    ).toEqual([`graph.yml:8:11: node "a" network.allow[0]: ${message}`]);
  });
  it('refuses a network without allow, and an unknown field in it', () => {
    expect(
      loadErrors(`${H}defaults:\n  network: { deny: [x.example] }\nnodes:\n  - id: a\n    run: make\n`),
    ).toEqual([
      'graph.yml:4:12: defaults.network.allow: required field is missing (expected array)',
      'graph.yml:4:14: defaults.network: unknown field "deny"; allowed: allow',
    ]);
  });
});
