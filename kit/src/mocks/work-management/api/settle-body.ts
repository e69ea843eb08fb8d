/**
 * Awaits the promises a render left in a response body. Attachment sizes are the only ones: a
 * document is built (asynchronously) the first time its size is asked for, so the `size` getter
 * hands back a promise until then. The walk visits plain objects and arrays only.
 */
export async function settleBody(body: unknown): Promise<void> {
  const pending: Array<Promise<void>> = [];
  const visit = (holder: Record<string | number, unknown>): void => {
    for (const key of Object.keys(holder)) {
      const value = holder[key];
      if (value instanceof Promise) pending.push(value.then((settled: unknown) => void (holder[key] = settled)));
      else if (isContainer(value)) visit(value);
    }
  };
  if (isContainer(body)) visit(body);
  if (pending.length > 0) await Promise.all(pending);
}

function isContainer(value: unknown): value is Record<string | number, unknown> {
  if (typeof value !== 'object' || value === null) return false;
  if (Array.isArray(value)) return true;
  const proto: unknown = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}
