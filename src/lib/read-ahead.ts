/**
 * Maps `items` through `fn` with up to `concurrency` calls in flight, yielding results in input
 * order. Adapters use it to overlap slow reads (files, HTTP) while the sync engine still sees a
 * deterministic event order. Stops pulling input as soon as the consumer stops.
 */
export async function* readAhead<T, R>(items: AsyncIterable<T> | Iterable<T>, concurrency: number, fn: (item: T) => Promise<R>): AsyncGenerator<R> {
  const window: Array<Promise<R>> = [];
  for await (const item of items) {
    const pending = fn(item);
    // Rejections are observed when the result's turn comes; until then keep Node from reporting them.
    pending.catch(() => undefined);
    window.push(pending);
    if (window.length >= concurrency) yield await (window.shift() as Promise<R>);
  }
  while (window.length > 0) yield await (window.shift() as Promise<R>);
}
