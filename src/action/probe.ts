/** The Actions probe lives beside recovery in `runner/` (the comment handler asks it too); these names stay here. */
export { type JobIdentity, probeActions } from '../runner/actions-probe.js';
