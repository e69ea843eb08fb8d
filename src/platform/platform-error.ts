/**
 * What went wrong talking to the platform, typed so callers branch on the class, never on the
 * message. Every error carries the HTTP status (0 when there was no answer), the platform's own
 * error code when its body had one, and the URL without its query (which may hold filters and
 * skip tokens, never credentials: those travel in headers only).
 */
export interface PlatformErrorDetails {
  status?: number;
  /** The platform's code: `code` of the Data/Message APIs, `error.code` of the Conversations API, `error` of OAuth. */
  code?: string;
  url?: string;
  cause?: unknown;
}

export class PlatformError extends Error {
  readonly status: number;
  readonly code: string | undefined;
  readonly url: string | undefined;

  constructor(message: string, details: PlatformErrorDetails = {}) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = new.target.name;
    this.status = details.status ?? 0;
    this.code = details.code;
    this.url = details.url;
  }
}

/** 401, or a 403 from the Data API (which lists no 401): the credentials are missing, wrong or expired. */
export class PlatformAuthError extends PlatformError {}

/** 403 with valid credentials: e.g. the Conversations API's "invalid assistant". */
export class PlatformForbiddenError extends PlatformError {}

/** 404: no such conversation, region or route (404 on every call means the API is not enabled for the tenant). */
export class PlatformNotFoundError extends PlatformError {}

/** 410: the endpoint was removed (its lifecycle ended). */
export class PlatformGoneError extends PlatformError {}

/** 429 that outlasted the retries. */
export class PlatformRateLimitError extends PlatformError {}

/** 5xx, timeouts or connection failures that outlasted the retries. */
export class PlatformUnavailableError extends PlatformError {}

/** 400 and other refusals of the request itself (bad filter, bad cursor, bad callback id). */
export class PlatformRequestError extends PlatformError {}

/** A 2xx answer whose body is not what the API documents (not JSON, not a number, no `value` array). */
export class PlatformResponseError extends PlatformError {}

/** The client refused to call a deprecated endpoint; `replacement` is the stable one to use instead. */
export class DeprecatedEndpointError extends PlatformError {
  constructor(
    message: string,
    readonly replacement: string,
  ) {
    super(message);
  }
}

/** The client was configured wrongly (unknown region, no credentials): nothing was sent. */
export class PlatformConfigError extends PlatformError {}
