import type { AccessReconcilingAdapter, AdapterContext, SettleEvent, SettleRequest } from '../adapter';
import { IncrementalRestAdapter, type RestCheckpoint } from './rest-incremental';
import { settleOf } from './rest-live-files';

/**
 * `updated_since` and `change_feed` manifests: incremental runs that do not list everything, so
 * the engine reconciles access after them. `liveFiles` (the full documents listing, access only)
 * and `settle` (what the listing could not vouch for: unseen staged files are gone unless their
 * access or the listing could not be read whole; listed files staging lacks are read whole).
 */
export class ReconcilingRestAdapter extends IncrementalRestAdapter implements AccessReconcilingAdapter<RestCheckpoint> {
  async *settle(ctx: AdapterContext, request: SettleRequest): AsyncGenerator<SettleEvent> {
    const live = this.live;
    if (!live) throw new Error('settle needs the live listing of the same run first');
    yield* this.withRun<SettleEvent>(ctx, (deps) => settleOf(request, live, deps));
  }
}
