/**
 * `work`'s outcome, or, if it has none after `ms`, a rejection with the error `expired()` returns
 * (called once, then: it may also abandon the work, e.g. close the connection it runs on). An
 * outcome that comes later is dropped. `ms` of 0 waits as long as `work` does.
 */
export function withDeadline<T>(work: PromiseLike<T>, ms: number, expired: () => Error): Promise<T> {
  if (ms <= 0) return Promise.resolve(work);
  return new Promise<T>((resolve, reject) => {
    let settled = false;
    const timer = setTimeout(() => {
      settled = true;
      reject(expired());
    }, ms);
    Promise.resolve(work).then(
      (value) => {
        if (settled) return;
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        if (settled) return;
        clearTimeout(timer);
        reject(error);
      },
    );
  });
}
