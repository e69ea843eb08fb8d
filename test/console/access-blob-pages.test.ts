import { AccessExplorer } from '../../src/console/access-explorer';
import { exploreAccess } from '../../src/console/explore-access';
import { ADMIN_BASIC, ADMIN_BEARER, CRAWL_KEY, startConsoleGateway, type ConsoleGateway } from '../helpers/console-gateway';
import { databaseKinds } from '../helpers/test-databases';

async function get(url: string, headers: Record<string, string>): Promise<{ status: number; body: string; headers: Headers }> {
  const res = await fetch(url, { headers, redirect: 'manual' });
  return { status: res.status, body: await res.text(), headers: res.headers };
}

describe.each(databaseKinds)('console pages 5 and 6 over the demo staged by a real sync (%s)', (kind) => {
  let gw: ConsoleGateway;

  beforeAll(async () => {
    gw = await startConsoleGateway(kind, { staging: 'demo' });
  });
  afterAll(() => gw?.close());

  it('answers the explorer JSON with the same data the page renders, behind the admin key only', async () => {
    const query = { user: 'ana.souza@northwind.example', limit: '5' };
    const res = await get(`${gw.url}/console/api/access?${new URLSearchParams(query)}`, ADMIN_BEARER);
    expect(res.status).toBe(200);
    expect(JSON.parse(res.body)).toEqual(JSON.parse(JSON.stringify(await exploreAccess(new AccessExplorer(gw.database.db), query))));
    expect(JSON.parse(res.body).user.page).toMatchObject({ offset: 0, limit: 5, total: 9, next: expect.any(String) });
    expect((await get(`${gw.url}/console/api/access?user=x`, {})).status).toBe(401);
    expect((await get(`${gw.url}/console/api/access?user=x`, { Authorization: `Bearer ${CRAWL_KEY}` })).status).toBe(401);
  });

  it("pages the explorer by cursor: the page's Next link (htmx) and the JSON's next go through every file once", async () => {
    const api = async (after?: string) =>
      JSON.parse(
        (
          await get(
            `${gw.url}/console/api/access?${new URLSearchParams({ user: 'ana.souza@northwind.example', limit: '4', ...(after ? { after } : {}) })}`,
            ADMIN_BEARER,
          )
        ).body,
      ) as {
        user: { files: Array<{ id: string }>; page: { next: string | null } };
      };
    const whole = (await api()).user;
    expect(whole.page.next).toBe(whole.files[3]?.id);
    const ids: string[] = [];
    let href: string | undefined = `${gw.url}/console/access?user=${encodeURIComponent('ana.souza@northwind.example')}&limit=4`;
    while (href) {
      const page = await get(href, ADMIN_BEARER);
      ids.push(...[...page.body.matchAll(/<small><code>([^<]+)<\/code><\/small>/g)].map((m) => m[1] as string));
      const next = /<a href="([^"]+)" hx-get="[^"]+"[^>]*rel="next"/.exec(page.body)?.[1];
      href = next ? `${gw.url}${next.replace(/&amp;/g, '&')}` : undefined;
    }
    expect(ids.length).toBe(9);
    expect(new Set(ids).size).toBe(9);
    const pages: string[] = [];
    for (let after: string | undefined, n = 0; n < 10; n += 1) {
      const body = await api(after);
      pages.push(...body.user.files.map((f) => f.id));
      if (!body.user.page.next) break;
      after = body.user.page.next;
    }
    expect(pages.sort()).toEqual([...ids].sort());
  });

  it('renders the grant path on the page, and refuses bad input in the error envelope', async () => {
    const page = await get(`${gw.url}/console/access?file=${encodeURIComponent('demo:engineering/platform/kubernetes-upgrade-plan.html')}`, ADMIN_BEARER);
    expect(page.status).toBe(200);
    expect(page.body).toContain('ana.souza@northwind.example');
    expect(page.body).toMatch(/<code>GROUP demo:platform-team<\/code> › <span title="demo:platform-team">Platform Team<\/span>/);
    const bad = await get(`${gw.url}/console/api/access?user=a&file=b`, ADMIN_BEARER);
    expect([bad.status, JSON.parse(bad.body).error.code]).toEqual([400, 'INPUT_VALIDATION_FAILED']);
    const unknown = JSON.parse((await get(`${gw.url}/console/api/access?file=demo:nothing`, ADMIN_BEARER)).body) as { notFound: string };
    expect(unknown.notFound).toContain('demo:nothing');
  });

  it('shows blob health, and verifies on a CSRF-checked action', async () => {
    const before = JSON.parse((await get(`${gw.url}/console/api/blobs`, ADMIN_BEARER)).body) as {
      verification?: unknown;
      garbage: { summary: { unreferenced: number } };
    };
    expect(before.verification).toBeUndefined();
    expect(before.garbage.summary.unreferenced).toBe(0);
    // A browser's ambient credential (Basic) without the token is refused.
    const refused = await fetch(`${gw.url}/console/api/blobs/verify`, {
      method: 'POST',
      headers: { ...ADMIN_BASIC, 'content-type': 'application/x-www-form-urlencoded' },
      body: '',
    });
    expect(refused.status).toBe(403);
    const page = await get(`${gw.url}/console/blobs`, ADMIN_BASIC);
    const token = /name="_csrf" value="([^"]+)"/.exec(page.body)?.[1] as string;
    const cookie = (page.headers.get('set-cookie') ?? '').split(';')[0] as string;
    const done = await fetch(`${gw.url}/console/api/blobs/verify`, {
      method: 'POST',
      redirect: 'manual',
      headers: { ...ADMIN_BASIC, cookie, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ _csrf: token }).toString(),
    });
    expect(done.status).toBe(303);
    expect(decodeURIComponent(done.headers.get('location') ?? '')).toMatch(/0 missing, 0 corrupt/);
    const after = JSON.parse((await get(`${gw.url}/console/api/blobs`, ADMIN_BEARER)).body) as {
      verification: { summary: { files: number; missing: number } };
    };
    expect(after.verification.summary).toMatchObject({ missing: 0 });
    expect(after.verification.summary.files).toBeGreaterThan(0);
    expect((await get(`${gw.url}/console/blobs`, ADMIN_BEARER)).body).toContain('0 missing');
  });
});
