import { errorCodes, type ErrorCode } from './error-codes';

/** An error the gateway answers with; its status comes from the registry, never from the thrower. */
export class GatewayError extends Error {
  readonly status: number;
  /** 5xx messages are replaced by a generic text on the wire; the original goes to the log. */
  readonly expose: boolean;

  constructor(
    readonly code: ErrorCode,
    message: string,
    options?: { cause?: unknown; headers?: Record<string, string>; expose?: boolean },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GatewayError';
    this.status = errorCodes[code].status;
    // `expose` on a 5xx: its message names only what the caller asked for and tells it what to do.
    this.expose = options?.expose ?? this.status < 500;
    this.headers = options?.headers ?? {};
  }

  readonly headers: Record<string, string>;
}

export function isGatewayError(error: unknown): error is GatewayError {
  return error instanceof GatewayError;
}

/** Anything thrown becomes a GatewayError: known ones pass through, the rest are internal errors. */
export function normalizeError(error: unknown): GatewayError {
  if (isGatewayError(error)) return error;
  // body-parser style errors carry a 4xx `status` and `expose: true` (oversized or malformed input).
  if (typeof error === 'object' && error !== null) {
    const status = (error as { status?: unknown }).status;
    if (typeof status === 'number' && status >= 400 && status < 500) {
      const code = (Object.keys(errorCodes) as ErrorCode[]).find((c) => errorCodes[c].status === status) ?? 'INPUT_VALIDATION_FAILED';
      return new GatewayError(code, (error as { message?: string }).message ?? 'Invalid request.', { cause: error });
    }
  }
  return new GatewayError('INTERNAL_SERVER_ERROR', 'The gateway could not complete the request.', { cause: error });
}
