import { emptyBatch } from '../../staging/write-path/sync-store';
import { AccessReconciliation } from '../reconcile-access';
import { stampOf, type RunContext, type RunTally } from '../run-context';
import { applyBatch } from './apply-batch';

/**
 * The access reconciler of one run, wired to its staging: it reads the files' staged states and
 * rewrites access lists through the run's write path, counting each rewrite as a change and each
 * listed file whose access could not be resolved whole as a failure. `touched`:
 * the files this run already wrote, deleted or failed (the reconciler leaves them alone).
 */
export function reconciliationOf(ctx: RunContext, tally: RunTally, touched: ReadonlySet<string>): AccessReconciliation {
  return new AccessReconciliation({
    source: ctx.source,
    batchSize: ctx.options.batchSize,
    touched,
    stamp: () => stampOf(ctx),
    tally,
    staging: {
      fileStates: (ids) => ctx.store.fileStates(ids),
      stagedAccess: (ids) => ctx.store.stagedAccess(ids),
      activeFileIds: () => ctx.store.activeFileIds(ctx.source),
      rewriteAccess: async (permissions) => {
        await applyBatch(ctx, { ...emptyBatch(), permissions }, stampOf(ctx));
        tally.counts.changed += permissions.length;
      },
    },
  });
}
