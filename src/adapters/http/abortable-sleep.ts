import { abortError } from '../../lib/abort-error';

/**
 * Waits `ms` milliseconds, or rejects with an `AbortError` as soon as `signal` fires, so a
 * cancelled sync never sits out a long `Retry-After`. The timer is not unref'd: a pending retry
 * is real work that should keep the process alive.
 */
export function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    if (signal?.aborted) {
      reject(abortError(signal));
      return;
    }
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(abortError(signal));
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, Math.max(0, ms));
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}
