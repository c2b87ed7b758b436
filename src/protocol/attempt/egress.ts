/**
 * What a node with `network:` may reach (issue 27): whether one request's host and port are on its
 * `network.allow`, the refusal it gets when they are not, and its connections in words. The proxy that asks
 * (src/os/proxies/egress-proxy.ts) holds no rule of its own.
 */
import { type HostName, type HostPattern, hostName, hostPattern } from '../../graph/schema/network.js';
import type { Connection } from '../../journal/events/fields.js';

/** Whether `pattern` admits `host` (already read by hostName) on `port`. */
function admits(pattern: HostPattern, host: HostName, port: number): boolean {
  if (pattern.port !== undefined && pattern.port !== port) return false;
  // An address is admitted only by itself: a name never stands for the addresses it resolves to, nor the reverse.
  if (pattern.kind === 'suffix') return host.kind === 'name' && host.host.endsWith(`.${pattern.host}`);
  return pattern.kind === host.kind && pattern.host === host.host;
}

/** The decision for one request: the host as journaled, and whether the allowlist admits it. */
interface EgressDecision {
  /** The host as read (lowercased, IPv6 in full form), or as asked when it is no host at all. */
  host: string;
  allowed: boolean;
}

/** Whether a node whose allowlist is `allow` may reach `host` (as a request names it) on `port`. */
export function egressDecision(allow: readonly string[], host: string, port: number): EgressDecision {
  const read = hostName(host);
  if (!read || port < 1 || port > 65535) return { host: host.toLowerCase(), allowed: false };
  const patterns = allow.map(hostPattern).filter((p): p is HostPattern => typeof p !== 'string');
  return { host: read.host, allowed: patterns.some((p) => admits(p, read, port)) };
}

/** A range of addresses a name may lead to only when the address itself is listed. */
type AddressKind =
  | 'loopback'
  | 'link-local'
  | 'private'
  | 'shared (CGNAT)'
  | 'multicast'
  | 'unspecified'
  | 'reserved';

function ipv4Kind(ip: string): AddressKind | undefined {
  const [a, b] = ip.split('.').map(Number) as [number, number];
  if (a === 0) return 'unspecified'; // 0.0.0.0/8, "this network"
  if (a === 127) return 'loopback';
  if (a === 169 && b === 254) return 'link-local'; // the cloud metadata service among them
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'private';
  if (a === 100 && b >= 64 && b <= 127) return 'shared (CGNAT)';
  if (a >= 224 && a <= 239) return 'multicast';
  if (a >= 240) return 'reserved'; // 240/4 and the broadcast address
  return undefined;
}

/** Four bytes of a full-form IPv6 address as a dotted IPv4 address (`xor`: Teredo's inverted client bits). */
const v4At = (b: number[], at: readonly number[], xor = 0) => at.map((i) => b[i]! ^ xor).join('.');

/**
 * Where RFC 6052 puts the IPv4 address in a NAT64 prefix of each length a /48 may be cut into (bytes; byte 8,
 * the `u` octet, never holds any): the local-use prefix 64:ff9b:1::/48 (RFC 8215) leaves the length to the
 * network, so every place is read (a place that holds the network's own bits may read as a private address: such
 * an address is refused too, and reached when listed itself).
 */
const NAT64_PLACES = [
  [6, 7, 9, 10], // /48
  [7, 9, 10, 11], // /56
  [9, 10, 11, 12], // /64
  [12, 13, 14, 15], // /96
] as const;

/** The IPv4 addresses a full-form IPv6 address embeds, by the form that embeds them; empty for none. */
function embeddedIPv4(full: string): string[] {
  const g = full.split(':').map((x) => Number.parseInt(x, 16));
  const b = g.flatMap((x) => [x >> 8, x & 255]);
  const zeroTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  const tail = v4At(b, [12, 13, 14, 15]);
  if (zeroTo(5) && g[5] === 0xffff) return [tail]; // IPv4-mapped, ::ffff:0:0/96
  if (zeroTo(4) && g[4] === 0xffff && g[5] === 0) return [tail]; // IPv4-translated (SIIT), ::ffff:0:0:0/96
  if (zeroTo(6)) return [tail]; // IPv4-compatible, ::/96 (deprecated)
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return [tail]; // NAT64, 64:ff9b::/96
  // 64:ff9b:1::/48: a place that reads 0.x.x.x is the zero padding of a longer prefix, never an address there.
  if (g[0] === 0x64 && g[1] === 0xff9b && g[2] === 1)
    return NAT64_PLACES.map((at) => v4At(b, at)).filter((v4) => !v4.startsWith('0.'));
  if (g[0] === 0x2002) return [v4At(b, [2, 3, 4, 5])]; // 6to4, 2002::/16
  if (g[0] === 0x2001 && g[1] === 0) return [v4At(b, [12, 13, 14, 15], 255)]; // Teredo's client, 2001::/32
  return [];
}

function ipv6Kind(full: string): AddressKind | undefined {
  const g = full.split(':').map((x) => Number.parseInt(x, 16));
  const zeroTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroTo(8)) return 'unspecified';
  if (zeroTo(7) && g[7] === 1) return 'loopback';
  // A form that embeds an IPv4 address reaches it: refused as that address would be (any of them, when the form
  // leaves its place open). An IPv4-compatible address is deprecated: reserved when its IPv4 one is public.
  const inside = embeddedIPv4(full);
  const kinds = inside.map(ipv4Kind).filter((k): k is AddressKind => k !== undefined);
  if (kinds.length) return kinds[0];
  if (zeroTo(6)) return 'reserved';
  if ((g[0]! & 0xffc0) === 0xfe80) return 'link-local';
  if ((g[0]! & 0xffc0) === 0xfec0 || (g[0]! & 0xfe00) === 0xfc00) return 'private';
  if ((g[0]! & 0xff00) === 0xff00) return 'multicast';
  return undefined;
}

/** Which of the ranges a name may not lead to `address` is in (undefined: a public address, or no address). */
export function addressKind(address: string): AddressKind | undefined {
  const read = hostName(address);
  if (read?.kind === 'ipv4') return ipv4Kind(read.host);
  if (read?.kind === 'ipv6') return ipv6Kind(read.host);
  return undefined;
}

/**
 * Which address an allowed request connects to, of those its host resolved to (an address asked for is its own
 * one answer), or why none: a loopback, link-local, private, shared, multicast, unspecified or reserved address
 * is reached only when that address itself is on `allow` with this port. The proxy connects to the address
 * picked here and looks the name up no second time, so a later answer cannot rebind it.
 */
export function egressAddress(
  allow: readonly string[],
  port: number,
  addresses: readonly string[],
): { address: string } | { refused: { address: string; kind: AddressKind } | undefined } {
  const patterns = allow.map(hostPattern).filter((p): p is HostPattern => typeof p !== 'string');
  let refused: { address: string; kind: AddressKind } | undefined;
  for (const address of addresses) {
    const kind = addressKind(address);
    const read = hostName(address);
    if (!read || read.kind === 'name') continue;
    if (!kind || patterns.some((p) => p.kind !== 'suffix' && admits(p, read, port))) return { address };
    refused ??= { address, kind };
  }
  return { refused };
}

/** The body of the 403 a request gets when its allowed name leads only to addresses it may not reach. */
function egressAddressRefusal(
  node: string,
  host: string,
  port: number,
  refused: { address: string; kind: AddressKind } | undefined,
): string {
  if (!refused) return `interlock: ${host} resolved to no address; nothing was reached.\n`;
  const entry = refused.address.includes(':') ? `"[${refused.address}]:${port}"` : refused.address;
  return `interlock: node "${node}" may not reach ${host}:${port}: it resolves to ${refused.address}, a ${refused.kind} address, which a name leads to only when that address is listed itself. To allow it, add ${entry} to network.allow.\n`;
}

/** The proxy's question for node `node`: the address to connect to, or the body of the 403 that refuses it. */
export function egressPick(
  node: string,
  allow: readonly string[],
  host: string,
  port: number,
  addresses: readonly string[],
): { address: string } | { refusal: string } {
  const picked = egressAddress(allow, port, addresses);
  return 'address' in picked ? picked : { refusal: egressAddressRefusal(node, host, port, picked.refused) };
}

/** The body of the 403 a refused request gets: the host, and the line that would allow it. */
export function egressRefusal(node: string, host: string, port: number): string {
  const read = hostName(host);
  const entry = read ? (read.kind === 'ipv6' ? `"[${host}]:${port}"` : `${read.host}`) : undefined;
  return entry
    ? `interlock: node "${node}" may not reach ${host}:${port}: it is not in the node's network.allow. To allow it, add ${entry} to network.allow (on the node, or in defaults.network).\n`
    : `interlock: node "${node}" asked for "${host}:${port}", which is no host name or IP address; nothing was reached.\n`;
}

/** Counts each request an attempt made, by host, port and decision; `list` gives them in a stable order. */
export class ConnectionTally {
  private readonly seen = new Map<string, Connection>();

  add(host: string, port: number, allowed: boolean): void {
    const key = `${allowed ? 1 : 0} ${host} ${port}`;
    const c = this.seen.get(key);
    if (c) c.count += 1;
    else this.seen.set(key, { host, port, allowed, count: 1 });
  }

  list(): Connection[] {
    return [...this.seen.values()]
      .map((c) => ({ ...c }))
      .sort(
        (a, b) => a.host.localeCompare(b.host) || a.port - b.port || Number(b.allowed) - Number(a.allowed),
      );
  }
}

/** An attempt's connections in one line: `registry.npmjs.org:443 allowed ×3, evil.example:443 refused ×1`. */
export function connectionWords(list: readonly Connection[]): string {
  if (list.length === 0) return 'no connection asked for';
  return list
    .map((c) => {
      const host = c.host.includes(':') ? `[${c.host}]` : c.host;
      return `${host}:${c.port} ${c.allowed ? 'allowed' : 'refused'} ×${c.count}`;
    })
    .join(', ');
}
