/**
 * A cancel does not leave a node running. A process that ignores TERM in a session of its own (`setsid`, `trap ""
 * TERM INT HUP`) outlives the process group the action stops, and the runner's KILL reaches only the action. So
 * when the main step is cancelled (INT or TERM) it ends every process of its node user before it exits, and the
 * post step, which runs even after a KILL, ends every process of the node user the main step named; each says how
 * many it ended.
 */
import { removeNodeHome } from './node-home.js';
import { endNodeProcesses, type Killable, processesOfUid, survivorsMessage } from './node-processes.js';
import { idsOf, nodeUser, sudoWorks } from './node-user.js';
import { holdName } from './node-user-claim.js';

/** What ending a node user's processes found: how many it ended, and which still ran after the bound. */
interface Ended {
  ended: number;
  left: number[];
  /** The line to log; undefined when there was nothing to end. */
  words?: string;
  /** Whether to say it as a warning (something still runs). */
  warn: boolean;
}

function endEvery(user: Killable, when: string): Ended {
  const before = processesOfUid(user.uid).length;
  if (before === 0) return { ended: 0, left: [], warn: false };
  const left = endNodeProcesses(user);
  const ended = Math.max(0, before - left.length);
  const words = left.length
    ? `ended ${ended}, but ${survivorsMessage(user, left, when)}`
    : `ended ${ended} process(es) of node user ${user.name} ${when} (kill -KILL -1 as that user)`;
  return { ended, left, words, warn: left.length > 0 };
}

/**
 * The post step: every process of `spec` (the node user the main step saved: a name or `uid:gid`), unless
 * another interlock step of this machine holds that name now (its nodes run as it; it ends what is left before
 * its first script). Undefined when there is nothing to do or no way to do it.
 */
export async function endAfterStep(spec: string): Promise<Ended | undefined> {
  if (!spec || process.platform !== 'linux') return undefined;
  const numeric = /^(\d+):(\d+)$/.exec(spec);
  const via = process.getuid?.() === 0 ? 'spawn' : !numeric && sudoWorks() ? 'sudo' : undefined;
  if (!via) return undefined;
  const ids = numeric ? { uid: Number(numeric[1]), gid: Number(numeric[2]) } : idsOf(spec);
  if (!ids || ids.uid === 0 || ids.uid === process.getuid?.()) return undefined;
  if (!numeric && !(await holdName(spec))) return undefined;
  const ended = endEvery({ name: spec, ...ids, via }, 'after the main step ended');
  return ended.left.length ? ended : withHome(ended, removeNodeHome({ ...ids, via }));
}

/** `ended` with what became of the node user's home (removeNodeHome) said after it. */
function withHome(ended: Ended, home: ReturnType<typeof removeNodeHome>): Ended {
  if (!home) return ended;
  const words = ended.words ? `${ended.words}; ${home.words}` : home.words;
  return { ...ended, words, warn: ended.warn || home.warn };
}

/** The main step's end or cancel: every process of the node user ended, then its passwd home removed. */
export function endOnExit(signal?: string): Ended | undefined {
  const user = nodeUser();
  if (!user) return undefined;
  const ended = endEvery(user, signal ? `when the step was cancelled (${signal})` : "at the step's end");
  return ended.left.length ? ended : withHome(ended, removeNodeHome(user));
}
