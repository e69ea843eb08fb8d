/**
 * Cancellation surfaces as an error named `AbortError`, whatever reason the caller aborted with,
 * so callers (and the retry policy) recognise it by name the way fetch and p-retry do. The
 * caller's own reason is kept as `cause`.
 */
export function abortError(signal?: AbortSignal): Error {
  const reason: unknown = signal?.reason;
  if (reason instanceof Error && reason.name === 'AbortError') return reason;
  return new DOMException('The operation was aborted', { name: 'AbortError', cause: reason });
}

/** Throws `abortError(signal)` when the signal has fired. */
export function throwIfAborted(signal: AbortSignal | undefined): void {
  if (signal?.aborted) throw abortError(signal);
}

export function isAbortError(error: unknown): boolean {
  return error instanceof Error && error.name === 'AbortError';
}
