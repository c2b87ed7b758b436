/**
 * What a node with `network:` may reach (issue 27): whether one request's host and port are on its
 * `network.allow`, the refusal it gets when they are not, and its connections in words. The proxy that asks
 * (src/os/egress-proxy.ts) holds no rule of its own.
 */
import { type HostName, type HostPattern, hostName, hostPattern } from '../graph/network-schema.js';
import type { Connection } from '../journal/event-fields.js';

/** Whether `pattern` admits `host` (already read by hostName) on `port`. */
function admits(pattern: HostPattern, host: HostName, port: number): boolean {
  if (pattern.port !== undefined && pattern.port !== port) return false;
  // An address is admitted only by itself: a name never stands for the addresses it resolves to, nor the reverse.
  if (pattern.kind === 'suffix') return host.kind === 'name' && host.host.endsWith(`.${pattern.host}`);
  return pattern.kind === host.kind && pattern.host === host.host;
}

/** The decision for one request: the host as journaled, and whether the allowlist admits it. */
export interface EgressDecision {
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
