import { AccessExplorer } from '../access-explorer';
import type { ConsolePage } from '../console-page';
import { exploreAccess, type ExplorerData } from '../explore-access';

/** "What can this user see, and why" and "who can see this file, and why", from staging as served (page 5). */
export const accessPage: ConsolePage<ExplorerData> = {
  path: 'access',
  title: 'Access explorer',
  template: 'access',
  async data(ctx, query) {
    const policies = (await ctx.accessPolicies?.()) ?? {};
    return exploreAccess(new AccessExplorer(ctx.db, policies), query);
  },
};
