/**
 * The serialized mode's reducers (issue 26). A chained dispatch may precede the end of the nodes before it in
 * its chain, and only those: each dependency not yet resolved must be in flight in the same chain (same first
 * node, same executor), earlier in it. A node given back (`NodeReturned`) is pending again, undone; its attempt
 * is not a failure.
 */
import type { EventOf } from '../events/events.js';
import { isResolved } from '../state.js';
import { type At, dependenciesResolved, type Folding, inFlight, progress } from './folding.js';

const execTag = (r: { exec_tag?: unknown }) => (typeof r.exec_tag === 'string' ? r.exec_tag : undefined);

/** Rule: a chained node is dispatched only after, or in the same chain just after, each of its dependencies. */
export function chainedDependencies(f: Folding, e: EventOf<'NodeDispatched'>, at: At): void {
  const chain = e.chain!;
  if (chain.position === 1) {
    if (chain.first !== e.node)
      at.bad(`node "${e.node}" is first of a chain that names "${chain.first}" first`);
    dependenciesResolved(f, e.node, 'dispatched', at);
    return;
  }
  const head = f.nodes.get(chain.first)?.dispatch;
  const headTag = head ? execTag(head.runner) : undefined;
  if (f.nodes.get(chain.first)?.state !== 'in_flight' || !head?.chain || headTag !== execTag(e.runner))
    at.bad(
      `node "${e.node}" is dispatched in the chain of "${chain.first}", which is not in flight in that chain`,
    );
  for (const dep of f.specs.get(e.node)?.depends_on ?? []) {
    const d = f.nodes.get(dep);
    if (!d || isResolved(d.state)) continue;
    const c = d.dispatch?.chain;
    const same =
      d.state === 'in_flight' &&
      c?.first === chain.first &&
      c.position < chain.position &&
      execTag(d.dispatch!.runner) === execTag(e.runner);
    if (!same)
      at.bad(`node "${e.node}" dispatched before "${dep}" ended (and "${dep}" is not earlier in its chain)`);
  }
}

/** A chained node whose chain broke before it: pending again, its attempt spent but not failed. */
export const nodeReturned = (f: Folding, e: EventOf<'NodeReturned'>, at: At): void => {
  const p = progress(f, e);
  inFlight(p, e, at);
  if (!p.dispatch?.chain)
    at.bad(`node "${e.node}" attempt ${e.attempt} is not part of a chain; only a chained node is returned`);
  p.state = 'pending';
  p.ended_at = e.at;
};
