import fc from 'fast-check';
import { followNextLinks, NextLinkError, type ODataPage } from '../../src/lib/follow-next-links';

/** A fake collection: page i at `https://gw.test/p/<i>`, each naming the next as the test says. */
function collection(nextOf: (i: number) => unknown) {
  const read: Array<string | undefined> = [];
  const fetchPage = async (link: string | undefined): Promise<ODataPage> => {
    read.push(link);
    const url = link ?? 'https://gw.test/p/0';
    const i = Number(new URL(url).pathname.split('/').pop());
    return { url, body: { value: [i], '@odata.nextLink': nextOf(i) } };
  };
  return { read, fetchPage };
}

async function walk(fetchPage: (link: string | undefined) => Promise<ODataPage>, maxPages?: number): Promise<{ pages: number[]; error?: NextLinkError }> {
  const pages: number[] = [];
  try {
    for await (const page of followNextLinks(fetchPage, maxPages === undefined ? {} : { maxPages })) pages.push((page.body.value as number[])[0]!);
  } catch (error) {
    if (!(error instanceof NextLinkError)) throw error;
    return { pages, error };
  }
  return { pages };
}

describe('followNextLinks', () => {
  it('reads every page once, in order, and ends at a missing, null or empty link', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 30 }), fc.constantFrom(undefined, null, ''), async (n, end) => {
        const c = collection((i) => (i + 1 < n ? `https://gw.test/p/${i + 1}?$skiptoken=a%2Fb` : end));
        expect((await walk(c.fetchPage)).pages).toEqual(Array.from({ length: n }, (_, i) => i));
        expect(c.read).toEqual([undefined, ...Array.from({ length: n - 1 }, (_, i) => `https://gw.test/p/${i + 1}?$skiptoken=a%2Fb`)]);
      }),
    );
  });

  it('follows an absolute link verbatim and resolves a relative one against its page', async () => {
    const c = collection((i) => (i === 0 ? 'HTTPS://gw.test/p/1?x=%7e' : i === 1 ? '2' : undefined));
    expect((await walk(c.fetchPage)).pages).toEqual([0, 1, 2]);
    expect(c.read).toEqual([undefined, 'HTTPS://gw.test/p/1?x=%7e', 'https://gw.test/p/2']);
  });

  it('stops with a named error at a loop, past maxPages, and at a link that is not a string', async () => {
    const loop = await walk(collection((i) => `https://gw.test/p/${(i + 1) % 3}`).fetchPage);
    expect(loop.pages).toEqual([0, 1, 2]);
    expect(loop.error).toMatchObject({ problem: 'loop', url: 'https://gw.test/p/0' });
    const long = await walk(collection((i) => `https://gw.test/p/${i + 1}`).fetchPage, 4);
    expect(long.pages).toEqual([0, 1, 2, 3]);
    expect(long.error).toMatchObject({ problem: 'too-many-pages', url: 'https://gw.test/p/4' });
    const odd = await walk(collection(() => 7).fetchPage);
    expect(odd.pages).toEqual([0]);
    expect(odd.error).toMatchObject({ problem: 'not-a-string', url: 'https://gw.test/p/0', message: '@odata.nextLink is not a string: 7' });
  });

  it('reads no page ahead: break stops the walk', async () => {
    const c = collection((i) => `https://gw.test/p/${i + 1}`);
    for await (const page of followNextLinks(c.fetchPage)) if ((page.body.value as number[])[0] === 2) break;
    expect(c.read).toHaveLength(3);
  });
});
