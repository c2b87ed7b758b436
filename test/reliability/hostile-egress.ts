/**
 * The hostile tries of a node with `network: { allow: [127.0.0.2] }` (test/reliability/hostile-egress.mjs) and
 * how each one's outcome is read: from the servers it aimed at (did a request or a connection arrive?), the time
 * the step ended, and the node's own report of what each try got. Shared by the suite
 * (test/reliability/hostile-egress.test.ts) and the table in docs/RELIABILITY.md.
 */
import type { EgressHost } from '../support/egress-hosts.js';
import type { Outcome } from './hostile-node.js';

export interface EgressObserved {
  report: Map<string, string>;
  granted: EgressHost;
  other: EgressHost;
  v6: EgressHost;
  /** When the step's process exited. */
  stepEnded: number;
}

export interface EgressAttempt {
  attempt: string;
  outcome: (o: EgressObserved) => Outcome;
}

const open = (what: string): Outcome => ({ blocked: false, what });
const shut = (what: string): Outcome => ({ blocked: true, what });
const count = (text: string, word: string) => text.split(word).length - 1;
/** Anything the refused host (127.0.0.3) or the IPv6 one saw, in words; empty when they saw nothing. */
function reachedOthers(o: EgressObserved): string {
  const seen = [o.other, o.v6].filter((h) => h.connections > 0 || h.requests.length > 0);
  return seen
    .map((h) => `${h.ip} saw ${h.connections} connection(s), ${h.requests.length} request(s)`)
    .join(', ');
}

/** Blocked when no other host saw anything and `ok` holds of what the node got; the node's words either way. */
function tried(row: string, ok: (found: string, o: EgressObserved) => boolean): EgressAttempt['outcome'] {
  return (o) => {
    const found = o.report.get(row) ?? 'not tried';
    const reached = reachedOthers(o);
    if (reached) return open(`${reached}: ${found}`);
    return ok(found, o) ? shut(found) : open(found);
  };
}

export const EGRESS_ATTEMPTS: EgressAttempt[] = [
  {
    attempt: 'a host not on the list, by name (`not-allowed.example`, `localhost`, a `CONNECT`)',
    outcome: tried('a host not on the list, by name', (f) => count(f, ': 403') === 3),
  },
  {
    attempt: 'a host not on the list, by IP (`127.0.0.3`, and `2130706433`, 127.0.0.1 as a number)',
    outcome: tried('a host not on the list, by IP', (f) => count(f, ': 403') === 3),
  },
  {
    attempt: 'around the proxy: a direct TCP connection (127.0.0.3, 127.0.0.2, 1.1.1.1)',
    outcome: tried('around the proxy (a direct connection)', (f) => !f.includes('connected')),
  },
  {
    attempt: 'over IPv6 (`[::1]` directly and through the proxy, `[::ffff:127.0.0.3]`)',
    outcome: tried('over IPv6', (f) => !f.includes('connected') && count(f, ': 403') === 2),
  },
  {
    attempt:
      'through the proxy with a forged `Host` header (absolute URI to 127.0.0.2, `Host: 127.0.0.3`; origin form)',
    outcome: tried('through the proxy with a forged Host header', (f, o) => {
      const forged = o.granted.requests.find((r) => r.path === '/forged-host');
      return forged?.host === `127.0.0.2:${o.granted.port}` && f.includes('HTTP/1.1 400');
    }),
  },
  {
    attempt: 'through the proxy with a forged SNI (`CONNECT 127.0.0.2`, then TLS naming another host)',
    outcome: tried('through the proxy with a forged SNI', (f) => f.startsWith('CONNECT 127.0.0.2')),
  },
  {
    attempt: 'by DNS (a lookup carrying data, a UDP packet to 8.8.8.8:53)',
    outcome: tried(
      'by DNS',
      (f) => !/lookup [^:]+: \{|: sent/.test(f) && !/\d+\.\d+\.\d+\.\d+/.test(f.split(';')[0]!),
    ),
  },
  {
    attempt: "a granted host's redirect to another host (the client follows it)",
    outcome: tried(
      'a granted host redirects to another host',
      (f) => /first request: 302 -> http:\/\/127\.0\.0\.3/.test(f) && f.endsWith('follows it: 403'),
    ),
  },
  {
    attempt:
      "the host's loopback services other than the passed-through ports (the local GitHub API; the proxy's sockets)",
    outcome: tried(
      "the host's loopback services (the local GitHub API)",
      (f) =>
        !f.includes(': connected') &&
        f.includes('through the proxy: 403') &&
        /sockets: (EACCES|listed 0)/.test(f),
    ),
  },
  {
    attempt: 'kill the relay, or listen on the proxy port in its place',
    outcome: tried('kill or replace the relay', (f) => f.includes(': EPERM') && f.endsWith('EADDRINUSE')),
  },
  {
    attempt: 'leave the namespace (`nsenter -t 1 -n`)',
    outcome: tried('leave the namespace', (f) => !f.endsWith('entered')),
  },
  {
    attempt: 'keep a connection open past the attempt (a detached process writes through a granted tunnel)',
    outcome: (o) => {
      const found = o.report.get('a connection held open past the attempt') ?? 'not tried';
      const late = o.granted.requests.filter((r) => r.path.startsWith('/late-'));
      const after = late.filter((r) => r.at > o.stepEnded);
      if (after.length) return open(`${after.length} request(s) arrived after the step ended`);
      if (!found.startsWith('tunnel 200')) return open(`the tunnel was not granted: ${found}`);
      return shut(
        `${late.length} request(s) during the attempt, none after it: the tunnel is cut when the attempt ends`,
      );
    },
  },
];

/** The table for docs/RELIABILITY.md: each try and its outcome as root and through sudo. */
export function egressTable(outcomes: { root: Outcome[]; sudo: Outcome[] }): string {
  const cell = (o: Outcome | undefined) =>
    o ? `${o.blocked ? 'blocked' : '**reached**'}: ${o.what.replace(/\|/g, '\\|')}` : 'not run';
  const rows = EGRESS_ATTEMPTS.map(
    (a, i) => `| ${a.attempt} | ${cell(outcomes.root[i])} | ${cell(outcomes.sudo[i])} |`,
  );
  return ['| attempt | as root | through passwordless sudo |', '| --- | --- | --- |', ...rows].join('\n');
}
