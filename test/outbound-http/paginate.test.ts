import { paginateItems, paginatePages } from '../../src/outbound-http/paginate';
import { RemoteRequestError } from '../../src/outbound-http/remote-error';

/**
 * A fake paged listing: `pages[i]` is served for the token `t<i>` (`undefined` for page 0) and
 * names `t<i+1>` as the next token unless it is the last. It records every token it was asked for.
 */
function listing<T>(pages: T[][], nextOf: (index: number) => string | null | undefined = (i) => (i + 1 < pages.length ? `t${i + 1}` : null)) {
  const calls: (string | undefined)[] = [];
  const fetchPage = async (token: string | undefined) => {
    calls.push(token);
    const index = token === undefined ? 0 : Number(token.slice(1));
    const items = pages[index];
    if (items === undefined) throw new Error(`no page for ${token}`);
    return { items, next: nextOf(index) };
  };
  return { calls, fetchPage };
}

async function collect<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const item of iterable) out.push(item);
  return out;
}

describe('paginatePages', () => {
  it('yields every page with the token that fetched it and the next one', async () => {
    const { fetchPage, calls } = listing([[1, 2], [3], [4, 5]]);
    expect(await collect(paginatePages(fetchPage))).toEqual([
      { items: [1, 2], token: undefined, next: 't1', pageNumber: 1 },
      { items: [3], token: 't1', next: 't2', pageNumber: 2 },
      { items: [4, 5], token: 't2', next: undefined, pageNumber: 3 },
    ]);
    expect(calls).toEqual([undefined, 't1', 't2']);
  });

  it('resumes from a checkpointed token', async () => {
    const { fetchPage, calls } = listing([[1], [2], [3]]);
    expect((await collect(paginatePages(fetchPage, { start: 't1' }))).map((p) => p.items)).toEqual([[2], [3]]);
    expect(calls).toEqual(['t1', 't2']);
  });

  it.each([[null], [undefined], ['']])('treats a next token of %p as the last page', async (last) => {
    const { fetchPage, calls } = listing([[1], [2]], (i) => (i === 0 ? 't1' : last));
    expect((await collect(paginatePages(fetchPage))).flatMap((p) => p.items)).toEqual([1, 2]);
    expect(calls).toHaveLength(2);
  });

  it('does not fetch before the first next() and never prefetches', async () => {
    const { fetchPage, calls } = listing([[1], [2], [3]]);
    const pages = paginatePages(fetchPage);
    expect(calls).toHaveLength(0);
    await pages.next();
    expect(calls).toHaveLength(1);
    await pages.next();
    expect(calls).toHaveLength(2);
    await pages.return();
    expect(calls).toHaveLength(2);
  });

  it('rejects a malformed page instead of guessing', async () => {
    const pages = paginatePages(async () => ({ items: 'nope' as unknown as number[] }));
    await expect(pages.next()).rejects.toThrow(RemoteRequestError);
  });
});

describe('paginateItems', () => {
  const walk = paginateItems<number>;
  it('yields every item in order, following the tokens', async () => {
    const { fetchPage, calls } = listing([[1, 2], [3], [4, 5, 6]]);
    expect(await collect(walk(fetchPage))).toEqual([1, 2, 3, 4, 5, 6]);
    expect(calls).toEqual([undefined, 't1', 't2']);
  });

  it('stops fetching when the consumer breaks', async () => {
    const { fetchPage, calls } = listing([[1, 2], [3, 4], [5, 6], [7]]);
    const seen: number[] = [];
    for await (const item of walk(fetchPage)) {
      seen.push(item);
      if (item === 3) break;
    }
    expect(seen).toEqual([1, 2, 3]);
    expect(calls).toEqual([undefined, 't1']);
  });

  it('stops fetching when the consumer breaks on the last item of a page', async () => {
    const { fetchPage, calls } = listing([[1, 2], [3, 4], [5]]);
    for await (const item of walk(fetchPage)) if (item === 2) break;
    expect(calls).toEqual([undefined]);
  });

  it('continues through empty pages that still name a next token', async () => {
    const { fetchPage, calls } = listing([[], [1], [], [], [2]]);
    expect(await collect(walk(fetchPage))).toEqual([1, 2]);
    expect(calls).toHaveLength(5);
  });

  it('yields nothing for an empty listing', async () => {
    const { fetchPage } = listing([[]]);
    expect(await collect(walk(fetchPage))).toEqual([]);
  });

  it('stops before the next fetch once the signal aborts', async () => {
    const { fetchPage, calls } = listing([[1, 2], [3], [4]]);
    const controller = new AbortController();
    const seen: number[] = [];
    const run = (async () => {
      for await (const item of walk(fetchPage, { signal: controller.signal })) {
        seen.push(item);
        if (item === 2) controller.abort();
      }
    })();
    await expect(run).rejects.toMatchObject({ name: 'AbortError' });
    expect(seen).toEqual([1, 2]);
    expect(calls).toEqual([undefined]);
  });

  it('fetches nothing when the signal is already aborted', async () => {
    const { fetchPage, calls } = listing([[1]]);
    await expect(collect(walk(fetchPage, { signal: AbortSignal.abort() }))).rejects.toMatchObject({ name: 'AbortError' });
    expect(calls).toHaveLength(0);
  });

  it('throws RemoteRequestError when the source repeats a token', async () => {
    // Page 2 points back to page 1: a source bug that would otherwise loop forever.
    const { fetchPage, calls } = listing([[1], [2], [3]], (i) => (i === 0 ? 't1' : i === 1 ? 't2' : 't1'));
    const seen: number[] = [];
    await expect(
      (async () => {
        for await (const item of walk(fetchPage)) seen.push(item);
      })(),
    ).rejects.toThrow(RemoteRequestError);
    expect(calls).toEqual([undefined, 't1', 't2']);
    expect(seen).toEqual([1, 2]);
  });

  it('throws RemoteRequestError when a page names itself as next', async () => {
    const { fetchPage } = listing([[1], [2]], () => 't1');
    await expect(collect(walk(fetchPage))).rejects.toThrow(/looping/);
  });

  it('throws RemoteRequestError past maxPages instead of stopping silently', async () => {
    const { fetchPage, calls } = listing([[1], [2], [3], [4]]);
    await expect(collect(walk(fetchPage, { maxPages: 2 }))).rejects.toThrow(RemoteRequestError);
    expect(calls).toHaveLength(2);
    await expect(collect(walk(listing([[1], [2]]).fetchPage, { maxPages: 2 }))).resolves.toEqual([1, 2]);
  });

  it('propagates fetch errors unchanged', async () => {
    const boom = new Error('boom');
    await expect(collect(walk(async () => Promise.reject(boom)))).rejects.toBe(boom);
  });
});
