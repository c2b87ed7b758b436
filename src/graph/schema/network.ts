/**
 * The egress allowlist of a graph and its nodes (issue 27): `network: { allow: [...] }` on `defaults` and on a
 * node, and the syntax of one host pattern (a host name, `*.domain`, an IP address, each with an optional
 * `:port`). What a pattern admits at run time is decided in src/protocol/attempt/egress.ts; kept apart from schema.ts so
 * other additions to the schema stay separate blocks.
 */
import * as z from 'zod';

/** A host as a request or a pattern names it: a DNS name, an IPv4 address (dotted quad) or an IPv6 address. */
export type HostName =
  | { kind: 'name'; host: string }
  | { kind: 'ipv4'; host: string }
  | { kind: 'ipv6'; host: string };

/** One entry of `network.allow`, read: a host (or every subdomain of `suffix`), any port unless `port` is set. */
export type HostPattern = ({ kind: 'suffix'; host: string } | HostName) & { port?: number };

const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const IPV4 = /^(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(\.(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}$/;

/** The 8 groups of an IPv6 address, each 4 hex digits (an embedded IPv4 tail turned into two), or undefined. */
function ipv6Groups(text: string): string[] | undefined {
  let t = text.toLowerCase();
  const v4 = /:(\d+\.\d+\.\d+\.\d+)$/.exec(t);
  if (v4) {
    if (!IPV4.test(v4[1]!)) return undefined;
    const b = v4[1]!.split('.').map(Number);
    t = `${t.slice(0, v4.index)}:${((b[0]! << 8) | b[1]!).toString(16)}:${((b[2]! << 8) | b[3]!).toString(16)}`;
  }
  if (!/^[0-9a-f:]+$/.test(t)) return undefined;
  const halves = t.split('::');
  if (halves.length > 2) return undefined;
  const part = (s: string) => (s === '' ? [] : s.split(':'));
  const head = part(halves[0]!);
  const tail = halves.length === 2 ? part(halves[1]!) : [];
  const fill = 8 - head.length - tail.length;
  if (halves.length === 2 ? fill < 1 : fill !== 0) return undefined;
  const groups = [...head, ...Array<string>(halves.length === 2 ? fill : 0).fill('0'), ...tail];
  if (groups.some((g) => !/^[0-9a-f]{1,4}$/.test(g))) return undefined;
  return groups.map((g) => g.padStart(4, '0'));
}

/**
 * A host as written in a request (a `CONNECT` target, an absolute URI) or a pattern: lowercased, a trailing dot
 * dropped, IPv6 without brackets and in full form. A name whose last label is all digits (`2130706433`,
 * `127.1`), which resolvers read as an address, is no host: undefined.
 */
export function hostName(text: string): HostName | undefined {
  const h = text.toLowerCase().replace(/\.$/, '');
  if (IPV4.test(h)) return { kind: 'ipv4', host: h };
  if (h.includes(':')) {
    const g = ipv6Groups(h.replace(/^\[(.*)\]$/, '$1'));
    return g ? { kind: 'ipv6', host: g.join(':') } : undefined;
  }
  const labels = h.split('.');
  if (h.length > 253 || !labels.every((l) => LABEL.test(l))) return undefined;
  if (/^[0-9]+$/.test(labels[labels.length - 1]!) || /^0x/.test(labels[labels.length - 1]!)) return undefined;
  return { kind: 'name', host: h };
}

/** `host:port`, `[v6]:port`, or a bare host (an IPv6 address without brackets has no port). */
function splitHostPort(text: string): { host: string; port?: string } {
  const bracketed = /^\[([^\]]*)\](?::(.*))?$/.exec(text);
  if (bracketed)
    return { host: bracketed[1]!, ...(bracketed[2] !== undefined ? { port: bracketed[2] } : {}) };
  const colons = text.split(':').length - 1;
  if (colons !== 1) return { host: text };
  const i = text.indexOf(':');
  return { host: text.slice(0, i), port: text.slice(i + 1) };
}

/** A port as written (`443`): 1 to 65535, no sign, no leading zero; else undefined. */
function portNumber(text: string): number | undefined {
  if (!/^[1-9]\d{0,4}$/.test(text)) return undefined;
  const n = Number(text);
  return n <= 65535 ? n : undefined;
}

const PATTERN_FIX =
  'write a host name (registry.npmjs.org), every subdomain of one (*.githubusercontent.com), or an IP address (127.0.0.2, [::1]), each with an optional :port';

/** One `network.allow` entry read, or why it is no pattern (the message the loader reports). */
export function hostPattern(text: string): HostPattern | string {
  const say = (why: string) => `${JSON.stringify(text)} ${why}: ${PATTERN_FIX}`;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) return say('is a URL, not a host');
  if (/[/\s@?#]/.test(text)) return say('is not a host');
  const { host, port: portText } = splitHostPort(text);
  const port = portText === undefined ? undefined : portNumber(portText);
  if (portText !== undefined && port === undefined) return say(`has port "${portText}", not 1 to 65535`);
  const withPort = port === undefined ? {} : { port };
  if (host.startsWith('*.')) {
    const rest = hostName(host.slice(2));
    if (rest?.kind !== 'name' || !rest.host.includes('.'))
      return say('is a wildcard over no domain (`*.` comes before a domain such as example.com)');
    return { kind: 'suffix', host: rest.host, ...withPort };
  }
  if (host.includes('*')) return say('has a `*` that is not the first label (`*.example.com`)');
  const name = hostName(host);
  if (!name) return say('is not a host name or IP address');
  return { ...name, ...withPort };
}

const NetworkAllow = z
  .array(
    z.string().superRefine((text, ctx) => {
      const read = hostPattern(text);
      if (typeof read === 'string') ctx.addIssue({ code: 'custom', message: read });
    }),
  )
  .register(z.globalRegistry, {
    description:
      "The hosts the node's commands and `command` checks may reach, through interlock's forward proxy: a host name (`registry.npmjs.org`), every subdomain of a domain (`*.example.com`, not `example.com` itself), or an IP address (`127.0.0.2`, `[::1]`), each with an optional `:port` (any port without one). An IP address is reachable only when it is listed itself, and a name never leads to a loopback, link-local, private, shared, multicast or unspecified address unless that address is listed itself. Every other host is refused.",
  });

/** `network:`: the node runs in a network namespace of its own, whose only way out is the allowlist. */
export const NetworkSchema = z.strictObject({ allow: NetworkAllow }).register(z.globalRegistry, {
  description:
    "Cuts the node's commands and `command` checks off the network but for the hosts in `allow`: they run in a network namespace of their own (loopback only, no DNS) whose only way out is interlock's forward proxy (`HTTP_PROXY`, `HTTPS_PROXY`). Needs root or passwordless sudo; where no namespace can be made the node fails before it runs. A node's own `network` replaces `defaults.network`. Without it, the node has the machine's open network.",
});
