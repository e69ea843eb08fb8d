/**
 * The one registry of error codes the gateway sends, with their HTTP status. Codes and statuses
 * follow the platform's error table; handlers throw `GatewayError(code, message)` and never pick a
 * status themselves. The error table of docs/endpoints.md is checked against this object by a test.
 */
export const errorCodes = {
  INPUT_VALIDATION_FAILED: { status: 400, description: 'The request is invalid: a malformed parameter, `$filter`, `$skiptoken` or id.' },
  AUTHENTICATION_FAILED: { status: 401, description: 'The `Authorization` credential is missing or wrong.' },
  FORBIDDEN: { status: 403, description: 'A console action (`POST /console/api/…`) from a browser without its CSRF token, or with a stale one.' },
  NOT_FOUND: { status: 404, description: 'The file, group or route does not exist.' },
  METHOD_NOT_ALLOWED: {
    status: 405,
    description: 'The route exists but not for this HTTP method, or the method is `CONNECT` (the gateway is read-only: `GET` and `HEAD`).',
  },
  REQUEST_TIMEOUT: {
    status: 408,
    description: 'The client did not send its request headers within `HEADERS_TIMEOUT_MS` (or the whole request within `REQUEST_TIMEOUT_MS`).',
  },
  URI_TOO_LONG: { status: 414, description: 'The request URL (path and query) is longer than `MAX_URL_LENGTH`.' },
  RANGE_NOT_SATISFIABLE: { status: 416, description: "A download's `Range` lies outside the file; `Content-Range: bytes */<size>` gives its size." },
  RATE_LIMIT_EXCEEDED: { status: 429, description: 'Too many requests; retry after `Retry-After` seconds.' },
  REQUEST_HEADERS_TOO_LARGE: {
    status: 431,
    description: "The request line and headers together exceed 16 KB, Node's limit (a URL that long gets this, not 414).",
  },
  INTERNAL_SERVER_ERROR: { status: 500, description: 'The gateway failed; the details are in its log under the request id.' },
  CONTENT_UNAVAILABLE: {
    status: 500,
    description:
      "A binary file's stored content is missing from, or damaged in, the blob store the gateway reads (most often a `BLOB_DIR` / `BLOB_STORE` other than the one staging was synced with). The message says what the operator runs (`verify-blobs`, which names the store it checked; `verify-blobs --repair` and a sync; `seed-demo` for the demo); the log line names the store and the file. The platform retries the file on a later crawl.",
  },
  EXTERNAL_REST_ERROR: { status: 502, description: 'A source system the gateway depends on failed.' },
  SERVICE_UNAVAILABLE: { status: 503, description: 'The gateway is overloaded or its database is unreachable; retry after `Retry-After` seconds.' },
} as const;

export type ErrorCode = keyof typeof errorCodes;
