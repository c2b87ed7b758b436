/** Every route the local GitHub serves, by area. Order matters only where templates overlap. */
import type { RouteDef } from '../router.js';
import { actionsRoutes } from './actions.js';
import { appRoutes } from './apps.js';
import { artifactRoutes } from './artifacts.js';
import { branchRoutes } from './branches.js';
import { checkRoutes } from './checks.js';
import { contentRoutes } from './contents.js';
import { gitDataRoutes } from './git-data.js';
import { hookRoutes } from './hooks.js';
import { issueRoutes } from './issues.js';
import { labelRoutes } from './labels.js';
import { metaRoutes } from './meta.js';
import { permissionRoutes } from './permissions.js';
import { pullRoutes } from './pulls.js';
import { reactionRoutes } from './reactions.js';
import { releaseRoutes } from './releases.js';
import { userRoutes } from './users.js';

export const routes: readonly RouteDef[] = [
  ...contentRoutes,
  ...gitDataRoutes,
  ...checkRoutes,
  ...branchRoutes,
  ...issueRoutes,
  ...labelRoutes,
  ...reactionRoutes,
  ...permissionRoutes,
  ...actionsRoutes,
  ...artifactRoutes,
  ...pullRoutes,
  ...releaseRoutes,
  ...hookRoutes,
  ...appRoutes,
  ...userRoutes,
  ...metaRoutes,
];
