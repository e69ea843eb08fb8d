import { AUTH, startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { databaseKinds } from '../helpers/test-databases';
import { at, htmlFile } from '../helpers/staging-fixtures';

type FileItem = { id: string; status: string; last_modified_datetime: string; content: { mime_type: string; body?: string; download_path?: string } };

/** Follows nextLinks from `first` to the end, returning every page. */
async function crawl(gw: TestGateway, first: string): Promise<Array<{ value: FileItem[]; next?: string }>> {
  const pages: Array<{ value: FileItem[]; next?: string }> = [];
  let next: string | undefined = first;
  while (next) {
    const res = await gw.get(next.replace(gw.url, ''), AUTH);
    expect(res.status).toBe(200);
    next = res.body['@odata.nextLink'];
    pages.push({ value: res.body.value, ...(next ? { next } : {}) });
    if (pages.length > 1000) throw new Error('crawl does not end');
  }
  return pages;
}

describe.each(databaseKinds)('GET /v1/files on %s', (kind) => {
  let gw: TestGateway;
  const ids = Array.from({ length: 25 }, (_, i) => `test:doc-${String(i).padStart(2, '0')}`);

  beforeAll(async () => {
    gw = await startTestGateway(kind, { pageSizeDefault: 10, pageSizeMax: 20 });
    // Timestamps run against the id order, so ordering by either gives a different sequence.
    await gw.writer.putFiles(
      ids.map((id, i) => ({
        file: htmlFile(id, { modified_at: at(100 - i), status: i % 5 === 0 ? 'deleted' : 'active' }),
        permissions: [],
      })),
    );
  });
  afterAll(() => gw.close());

  it('when asked without options, then it pages through every file in id order with absolute nextLinks', async () => {
    const pages = await crawl(gw, '/v1/files');
    expect(pages.map((p) => p.value.length)).toEqual([10, 10, 5]);
    expect(pages.flatMap((p) => p.value.map((f) => f.id))).toEqual(ids);
    for (const p of pages.slice(0, -1)) expect(p.next).toMatch(new RegExp(`^${gw.url}/v1/files\\?\\$top=10&\\$skiptoken=`));
    expect(pages.at(-1)?.next).toBeUndefined();
  });

  it('when a list item is HTML, then its body is left out but its type and status are there', async () => {
    const res = await gw.get('/v1/files?$top=3', AUTH);
    expect(res.body['@odata.context']).toBe(`${gw.url}/v1/$metadata#Content`);
    for (const f of res.body.value as FileItem[]) {
      expect(f.content).toEqual({ mime_type: 'text/html' });
      expect(['active', 'deleted']).toContain(f.status);
    }
  });

  it('when $top is above the ceiling, then it is clamped rather than refused', async () => {
    const res = await gw.get('/v1/files?$top=5000', AUTH);
    expect(res.status).toBe(200);
    expect(res.body.value).toHaveLength(20);
    expect(res.body['@odata.nextLink']).toContain('$top=20&');
  });

  it('when $skip is given on a first request, then it is honoured and paging continues by token', async () => {
    const pages = await crawl(gw, '/v1/files?$skip=7&$top=6');
    expect(pages.flatMap((p) => p.value.map((f) => f.id))).toEqual(ids.slice(7));
  });

  it('when ordered by last_modified_datetime (asc and desc), then the crawl follows the timestamps', async () => {
    const asc = (await crawl(gw, '/v1/files?$orderby=last_modified_datetime&$top=4')).flatMap((p) => p.value);
    expect(asc.map((f) => f.id)).toEqual([...ids].reverse());
    const desc = (await crawl(gw, '/v1/files?$orderby=last_modified_datetime%20desc&$top=4')).flatMap((p) => p.value);
    expect(desc.map((f) => f.id)).toEqual(ids);
  });

  it('when filtered by status and time, then only matching files come back, on every page', async () => {
    const filter = encodeURIComponent(`status eq 'active' and last_modified_datetime gt ${at(90)}`);
    const got = (await crawl(gw, `/v1/files?$filter=${filter}&$top=3`)).flatMap((p) => p.value);
    const expected = ids.filter((_, i) => i % 5 !== 0 && 100 - i > 90);
    expect(got.map((f) => f.id)).toEqual(expected);
    for (const f of got) expect(f.status).toBe('active');
  });

  it('when filtered by id, then exactly that file comes back', async () => {
    const res = await gw.get(`/v1/files?$filter=${encodeURIComponent("id eq 'test:doc-03'")}`, AUTH);
    expect(res.body.value.map((f: FileItem) => f.id)).toEqual(['test:doc-03']);
  });

  it('when $select names optional fields, then required fields stay and unselected optional ones go', async () => {
    const res = await gw.get('/v1/files?$select=created_by&$top=1', AUTH);
    const [f] = res.body.value;
    expect(Object.keys(f).sort()).toEqual(['content', 'created_by', 'external_url', 'id', 'last_modified_datetime', 'name', 'status']);
  });

  it.each([
    ['$top=0', /\$top/],
    ['$top=abc', /\$top/],
    ['$top=-1', /\$top/],
    ['$skip=-3', /\$skip/],
    ['$filter=name%20eq%20%27x%27', /'name' cannot be filtered on.*Accepted/],
    ['$filter=status%20eq%20%27gone%27', /'gone' is not a valid status/],
    ['$filter=last_modified_datetime%20gt%20yesterday', /ISO-8601/],
    ['$filter=status%20eq%20%27active%27%20or%20status%20eq%20%27deleted%27', /joined by 'and'/],
    ['$filter=(status%20eq%20%27active%27', /unbalanced/],
    ['$orderby=name', /Unsupported \$orderby/],
    ['$select=nonsense', /Unsupported \$select/],
    ['$skiptoken=not-a-token', /Invalid \$skiptoken/],
  ])('when %s, then 400 INPUT_VALIDATION_FAILED says what is accepted', async (query, message) => {
    const res = await gw.get(`/v1/files?${query}`, AUTH);
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('INPUT_VALIDATION_FAILED');
    expect(res.body.error.message).toMatch(message);
  });

  it('when a token is tampered with, foreign, or reused with another filter, then 400', async () => {
    const first = await gw.get('/v1/files?$top=2', AUTH);
    const token = new URL(first.body['@odata.nextLink']).searchParams.get('$skiptoken') as string;
    const [body, mac] = token.split('.') as [string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString());
    const forged = `${Buffer.from(JSON.stringify({ ...payload, k: ['test:doc-20'] })).toString('base64url')}.${mac}`;
    const tampered = await gw.get(`/v1/files?$skiptoken=${forged}`, AUTH);
    expect(tampered.status).toBe(400);
    expect(tampered.body.error.message).toMatch(/signature/);

    const other = await startTestGateway('sqlite');
    try {
      const res = await other.get(`/v1/files?$skiptoken=${token}`, AUTH);
      expect(res.status).toBe(400);
      expect(res.body.error.message).toMatch(/signature/);
    } finally {
      await other.close();
    }

    const users = await gw.get(`/v1/users?$skiptoken=${token}`, AUTH);
    expect(users.status).toBe(400);
    expect(users.body.error.message).toMatch(/another collection/);

    const changed = await gw.get(`/v1/files?$skiptoken=${token}&$filter=${encodeURIComponent("status eq 'active'")}`, AUTH);
    expect(changed.status).toBe(400);
    expect(changed.body.error.message).toMatch(/cannot change while paging/);
  });

  it('accepts and ignores OData options it does not implement', async () => {
    const res = await gw.get('/v1/files?$count=true&$expand=x&foo=bar&$top=2', AUTH);
    expect(res.status).toBe(200);
    expect(res.body.value).toHaveLength(2);
  });
});

describe('HTML bodies in lists', () => {
  it('when INCLUDE_HTML_BODY_IN_LIST is on, then list items carry content.body', async () => {
    const gw = await startTestGateway('sqlite', { includeHtmlBodyInList: true });
    try {
      await gw.writer.putFiles([{ file: htmlFile('test:a'), permissions: [] }]);
      const res = await gw.get('/v1/files', AUTH);
      expect(res.body.value[0].content.body).toBe('<h1>Article test:a</h1><p>Body of test:a.</p>');
    } finally {
      await gw.close();
    }
  });
});

describe('links behind a proxy', () => {
  it('when PUBLIC_BASE_URL is set, then nextLink and context use it', async () => {
    const gw = await startTestGateway('sqlite', { publicBaseUrl: 'https://gateway.example.com/' });
    try {
      await gw.writer.putFiles([htmlFile('test:a'), htmlFile('test:b')].map((file) => ({ file, permissions: [] })));
      const res = await gw.get('/v1/files?$top=1', AUTH);
      expect(res.body['@odata.context']).toBe('https://gateway.example.com/v1/$metadata#Content');
      expect(res.body['@odata.nextLink']).toMatch(/^https:\/\/gateway\.example\.com\/v1\/files\?\$top=1&\$skiptoken=/);
    } finally {
      await gw.close();
    }
  });

  it('when the proxy is trusted, then X-Forwarded-Proto/Host shape the links; when not, they are ignored', async () => {
    for (const [trustProxy, expected] of [
      ['true', 'https://public.example.org'],
      ['false', 'http://127.0.0.1'],
    ] as const) {
      const gw = await startTestGateway('sqlite', { trustProxy });
      try {
        await gw.writer.putFiles([htmlFile('test:a'), htmlFile('test:b')].map((file) => ({ file, permissions: [] })));
        const res = await gw.get('/v1/files?$top=1', { ...AUTH, 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'public.example.org' });
        expect(res.body['@odata.nextLink'].startsWith(`${expected}`)).toBe(true);
      } finally {
        await gw.close();
      }
    }
  });
});
