/**
 * What keeps a node's work apart from the step (SECURITY.md), built once by the face and passed down with the step's
 * setup (`AttemptSetup.isolation`) rather than set as a module global from the entry point (issue 47). For now it
 * holds the credential grants; the node user (`configureNodeUser`), the git guard (`guardCheckout`) and the key
 * proxy's credentials (`configureAgentCredentials`) are still module globals of src/os, to join it.
 */
import type { CredentialGrants } from './node-user/node-credentials.js';

export interface Isolation {
  /** Which node may have which of the step's credentials (`node-credentials`): every other node goes without. */
  credentials: CredentialGrants;
}
