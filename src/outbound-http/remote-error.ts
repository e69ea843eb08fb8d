/**
 * What went wrong at a remote system over HTTP, typed by what the caller should do about it. The
 * outbound client throws these (`remote-error-from-status.ts` maps statuses to them); the adapter
 * contract takes them as its `RemoteError`s, the platform clients wrap them in their own errors.
 *
 * `action`: `abort` stops the caller's work (credentials wrong, a refusal no retry changes);
 * `retry` is transient; `skip-item` spoils this item only; `full-resync` says the caller's saved
 * position (a sync token, a cursor) is no longer valid and its walk must start over.
 */
export type RemoteErrorAction = 'abort' | 'retry' | 'skip-item' | 'full-resync';

type RemoteErrorDetails = { status?: number; url?: string; cause?: unknown };

export class RemoteError extends Error {
  /** What the caller does when it meets this error. */
  readonly action: RemoteErrorAction = 'abort';
  constructor(
    message: string,
    readonly details: RemoteErrorDetails = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
  }
}

/** The base of the RemoteErrors a caller meets with `action` rather than aborting. */
export function handledBy(action: RemoteErrorAction) {
  return class extends RemoteError {
    override readonly action = action;
  };
}

/** Credentials missing, wrong or expired: nothing can be read until they are fixed. */
export class RemoteAuthError extends RemoteError {}

/** Authenticated but not allowed to read this item: skip it. */
export class RemotePermissionError extends handledBy('skip-item') {}

/** The item vanished between listing and reading: skip it. */
export class RemoteNotFoundError extends handledBy('skip-item') {}

/** Too many requests: retry after `retryAfterMs` (when the remote said). */
export class RemoteRateLimitError extends handledBy('retry') {
  constructor(
    message: string,
    readonly retryAfterMs: number | undefined,
    details: RemoteErrorDetails = {},
  ) {
    super(message, details);
  }
}

/** 5xx, timeouts and network failures: worth retrying. */
export class RemoteUnavailableError extends handledBy('retry') {}

/** The request was malformed or the remote refused its content (4xx other than the above). */
export class RemoteRequestError extends handledBy('skip-item') {}

export function isRemoteError(error: unknown): error is RemoteError {
  return error instanceof RemoteError;
}
