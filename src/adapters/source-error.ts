import { handledBy } from '../outbound-http/remote-error';

/**
 * What went wrong at a source system, typed by what the sync engine should do about it (`action`).
 * Adapters throw these (or yield them in `failure` events). A source's HTTP failures are the
 * outbound client's typed `RemoteError`s, so the adapter contract takes that family as its own
 * under the names adapters speak (a `SourceNotFoundError` IS a `RemoteNotFoundError`), and adds
 * what only a sync knows: `FullRunRequired`.
 */
export {
  RemoteError as SourceError,
  RemoteAuthError as SourceAuthError,
  RemotePermissionError as SourcePermissionError,
  RemoteNotFoundError as SourceNotFoundError,
  RemoteRateLimitError as SourceRateLimitError,
  RemoteUnavailableError as SourceUnavailableError,
  RemoteRequestError as SourceRequestError,
  isRemoteError as isSourceError,
} from '../outbound-http/remote-error';
export type { RemoteErrorAction as SourceErrorAction } from '../outbound-http/remote-error';

/**
 * An incremental run cannot go on from its checkpoint, and a full run is required; the message is
 * the reason, which the run summary gives (`fellBackToFull`). Thrown by `changes()`: an expired sync
 * token or a cursor the source forgot, a checkpoint of another configuration (mapping, workspace),
 * a change the feed cannot express (files gone, users reactivated), an access policy changed. Thrown
 * before the first event, the run is planned full from the start (nothing recorded for the
 * incremental one); thrown later, the incremental run is recorded as failed and a full run follows.
 */
export class FullRunRequired extends handledBy('full-resync') {
  get reason(): string {
    return this.message;
  }
}
