/**
 * What went wrong at a source system, typed by what the sync engine should do about it.
 * Adapters throw these (or yield them in `failure` events); one function maps upstream HTTP
 * statuses to them (`adapters/http/source-error-from-status.ts`).
 */
export type SourceErrorAction = 'abort' | 'retry' | 'skip-item' | 'full-resync';

type SourceErrorDetails = { status?: number; url?: string; cause?: unknown };

export class SourceError extends Error {
  /** What the engine does when it meets this error. */
  readonly action: SourceErrorAction = 'abort';
  constructor(
    message: string,
    readonly details: SourceErrorDetails = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
  }
}

/** The base of the SourceErrors the engine meets with `action` rather than aborting. */
function handledBy(action: SourceErrorAction) {
  return class extends SourceError {
    override readonly action = action;
  };
}

/** Credentials missing, wrong or expired: nothing can be synced until they are fixed. */
export class SourceAuthError extends SourceError {}

/** Authenticated but not allowed to read this item: skip it, record a failure. */
export class SourcePermissionError extends handledBy('skip-item') {}

/** The item vanished between listing and reading: skip it. */
export class SourceNotFoundError extends handledBy('skip-item') {}

/** Too many requests: retry after `retryAfterMs` (when the source said). */
export class SourceRateLimitError extends handledBy('retry') {
  constructor(
    message: string,
    readonly retryAfterMs: number | undefined,
    details: SourceErrorDetails = {},
  ) {
    super(message, details);
  }
}

/** 5xx, timeouts and network failures: worth retrying. */
export class SourceUnavailableError extends handledBy('retry') {}

/** The request was malformed or the source refused its content (4xx other than the above). */
export class SourceRequestError extends handledBy('skip-item') {}

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

export function isSourceError(error: unknown): error is SourceError {
  return error instanceof SourceError;
}
