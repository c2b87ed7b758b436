/**
 * Which node user a step may use alone on this machine: two steps at once must never share one (each step kills
 * every process its node user has after each script, and one node could read another's environment).
 */
import { createServer } from 'node:net';

/**
 * The abstract socket's name for `name`, padded with NULs to fill the address's path field (108 bytes). Node 20
 * binds an abstract name with the field's padding, Node 24 with the name's own bytes only: unpadded, one name is
 * two to the kernel, and a step on Node 24 and one on Node 20 (a runner forced to another Node, a release of
 * before) both held the same node user and killed each other's nodes. Padded, every Node binds what Node 20 did.
 */
export function socketName(name: string): string {
  return `\0${`interlock-node-user:${name}`.padEnd(107, '\0')}`;
}

/** The abstract socket that says a step of this machine holds `name` (the kernel drops it when the process ends). */
export function holdName(name: string): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen({ path: socketName(name), exclusive: true }, () => {
      server.unref();
      resolve(true);
    });
  });
}

/**
 * The node user this step may use alone: `name`, or when another interlock step on this machine holds it (several
 * runners on one host), `name-2`, `name-3` … . Two steps must never share a node user at once: each step kills
 * every process its node user has after each script, and one node could read another's environment. A numeric
 * `uid:gid` is the caller's to keep apart. Linux only (abstract sockets); elsewhere the name as given.
 */
/**
 * How many steps at once one host may run, each with a node user of its own: more than any runner host runs (the
 * test suites run two fan-outs of 20 jobs side by side). Each numbered user is made once, on first use.
 */
const NODE_USERS_AT_ONCE = 96;

export async function claimNodeUser(name: string): Promise<string> {
  if (process.platform !== 'linux' || /^\d+:\d+$/.test(name)) return name;
  for (let i = 1; i <= NODE_USERS_AT_ONCE; i++) {
    const candidate = i === 1 ? name : `${name.slice(0, 28)}-${i}`;
    if (await holdName(candidate)) return candidate;
  }
  throw new Error(
    `node-user "${name}": ${NODE_USERS_AT_ONCE} interlock steps on this machine hold ${name} and its numbered variants`,
  );
}
