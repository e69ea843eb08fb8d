import crypto from 'node:crypto';
import {
  SAMPLE_DEFECTS,
  SAMPLE_FILES,
  placeholderBytes,
  startPlatformSampleGateway,
  type PlatformSampleGateway,
  type PlatformSampleGatewayOptions,
  type SampleEndpoint,
} from './platform-sample-gateway';

/** Pins the fixture's wire behaviour: each item is what the platform's starter server does. */

type Json = Record<string, any>;

let gw: PlatformSampleGateway;
beforeAll(async () => {
  gw = await startPlatformSampleGateway({ key: 'sample-key', specExtras: false });
});
afterAll(() => gw.close());

const call = (g: PlatformSampleGateway, path: string, init: RequestInit = {}) =>
  fetch(path.startsWith('http') ? path : g.url + path, { ...init, headers: { Authorization: `Bearer ${g.key}`, ...(init.headers as Record<string, string>) } });
const getJson = async (g: PlatformSampleGateway, path: string): Promise<{ status: number; body: Json; text: string; headers: Headers }> => {
  const res = await call(g, path);
  const text = await res.text();
  return { status: res.status, body: JSON.parse(text) as Json, text, headers: res.headers };
};
async function withGateway(options: PlatformSampleGatewayOptions, run: (g: PlatformSampleGateway) => Promise<void>): Promise<void> {
  const g = await startPlatformSampleGateway({ specExtras: false, ...options });
  try {
    await run(g);
  } finally {
    await g.close();
  }
}

describe('the platform sample gateway fixture', () => {
  it('lists raw, URL-safe ids in the sample file shape, HTML without body, binaries with /<id>/download', async () => {
    const { status, body, text, headers } = await getJson(gw, '/v1/files');
    expect(status).toBe(200);
    expect(headers.get('content-type')).toBe('application/json');
    expect(text.startsWith('{"@odata.context":')).toBe(true); // jsonify: sorted keys, compact
    expect(text.endsWith('}\n')).toBe(true);
    expect(body['@odata.context']).toBe(`${gw.url}/$metadata#Content`);
    expect(body['@odata.nextLink']).toBeUndefined();
    expect(body.value.map((f: Json) => f.id)).toEqual(['kb-001', 'kb-002', 'kb-003', 'kb-004', 'kb-005', 'kb-006', 'kb-007', 'kb-008']);
    const [html, pdf] = body.value as Json[];
    expect(Object.keys(html!).sort()).toEqual([
      'content',
      'created_by',
      'created_datetime',
      'custom_attributes',
      'external_url',
      'id',
      'last_modified_by',
      'last_modified_datetime',
      'name',
      'status',
    ]);
    expect(html).toMatchObject({ status: 'active', custom_attributes: {}, last_modified_datetime: '2025-03-02T09:30:00Z' });
    expect(html!.content).toEqual({ mime_type: 'text/html', size: null });
    expect(pdf!.content).toEqual({ mime_type: 'application/pdf', download_path: '/kb-002/download', sha1_hash: null, size: 245_760 });
    expect(body.value.map((f: Json) => f.content.mime_type)).toEqual(
      expect.arrayContaining(['text/plain', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document']),
    );
    for (const f of body.value as Json[]) expect(f).not.toHaveProperty('metadata_url');
  });

  it('serves one file with the inline HTML body; unknown ids are 404 NOT_FOUND; ids arrive percent-decoded', async () => {
    const html = await getJson(gw, '/v1/files/kb-001');
    expect(html.body['@odata.context']).toBe(`${gw.url}/$metadata#Content`);
    expect(html.body.value.content).toEqual({ mime_type: 'text/html', size: null, body: expect.stringContaining('<h1>Getting started') });
    expect((await getJson(gw, '/v1/files/kb%2D002')).body.value.id).toBe('kb-002');
    expect((await getJson(gw, '/v1/files/kb-002')).body.value.content).not.toHaveProperty('body');
    const missing = await getJson(gw, '/v1/files/nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: { code: 'NOT_FOUND', message: 'File nope not found.' } });
    expect((await getJson(gw, '/v1/files/nope/download')).body).toEqual({ error: { code: 'NOT_FOUND', message: 'File nope not found.' } });
  });

  it('downloads a placeholder body with its type, Content-Length and hex Checksum-SHA256, and no ETag, Last-Modified or Content-Disposition', async () => {
    const res = await call(gw, '/v1/files/kb-002/download');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(res.status).toBe(200);
    expect(bytes.toString()).toBe('[Demo] Binary content for: Travel expense policy');
    expect(res.headers.get('content-type')).toBe('application/pdf');
    expect(res.headers.get('content-length')).toBe(String(bytes.length));
    expect(res.headers.get('checksum-sha256')).toBe(crypto.createHash('sha256').update(bytes).digest('hex'));
    for (const h of ['etag', 'last-modified', 'content-disposition', 'accept-ranges']) expect(res.headers.get(h)).toBeNull();
    // Defect size-mismatch: the declared size is not what downloads.
    expect(bytes.length).not.toBe(245_760);
    // Any known id downloads, HTML included.
    const htmlDownload = await call(gw, '/v1/files/kb-001/download');
    expect([htmlDownload.status, htmlDownload.headers.get('content-type'), await htmlDownload.text()]).toEqual([
      200,
      'text/html',
      '[Demo] Binary content for: Getting started with the wiki',
    ]);
  });

  it('answers access lists as {permissions, last_modified_datetime: null}, the wildcard on kb-001, and the wildcard for unknown files', async () => {
    const pub = await getJson(gw, '/v1/files/kb-001/permissions');
    expect(pub.body).toEqual({
      '@odata.context': `${gw.url}/$metadata#Permissions`,
      value: { permissions: [{ type: 'GROUP', id: '*', action: 'VIEW' }], last_modified_datetime: null },
    });
    const two = await getJson(gw, '/v1/files/kb-006/permissions?$top=1');
    expect(two.body.value.permissions).toEqual([{ type: 'GROUP', id: 'group-engineering', action: 'VIEW' }]);
    expect(two.body['@odata.nextLink']).toBe(`${gw.url}/v1/files/kb-006/permissions?$top=1&$skip=1`);
    expect((await getJson(gw, two.body['@odata.nextLink'])).body.value.permissions).toEqual([{ type: 'USER', id: 'user-004', action: 'VIEW' }]);
    const unknown = await getJson(gw, '/v1/files/nope/permissions');
    expect([unknown.status, unknown.body.value.permissions]).toEqual([200, [{ type: 'GROUP', id: '*', action: 'VIEW' }]]);
    expect((await getJson(gw, '/v1/files/permissions/metadata')).body).toEqual({
      '@odata.context': `${gw.url}/$metadata#PermissionsMetadata`,
      model: 'resource_permission',
    });
  });

  it('lists users, groups and direct members in the sample shape; an unknown group has no members', async () => {
    const users = await getJson(gw, '/v1/users');
    expect(users.body['@odata.context']).toBe(`${gw.url}/$metadata#Users`);
    expect(users.body.value[0]).toEqual({
      id: 'user-001',
      primary_email_addr: 'ada.lind@wiki.example.internal',
      full_name: 'Ada Lind',
      state: 'Active',
      last_modified_datetime: '2025-01-01T00:00:00Z',
    });
    expect(users.body.value.find((u: Json) => u.id === 'user-005').state).toBe('Inactive');
    const groups = await getJson(gw, '/v1/groups');
    expect(groups.body['@odata.context']).toBe(`${gw.url}/$metadata#Groups`);
    expect(groups.body.value[0]).toEqual({ id: 'group-everyone', name: 'Everyone', last_modified_datetime: '2025-01-01T00:00:00Z' });
    const members = await getJson(gw, '/v1/groups/group-engineering/members');
    expect(members.body).toEqual({
      '@odata.context': `${gw.url}/$metadata#GroupMembers`,
      value: [
        { type: 'GROUP', id: 'group-platform', name: 'Platform' },
        { type: 'USER', id: 'user-002', name: 'Bo Okafor' },
      ],
    });
    const paged = await getJson(gw, '/v1/groups/group-engineering/members?$top=1');
    expect(paged.body['@odata.nextLink']).toBe(`${gw.url}/v1/groups/group-engineering/members?$top=1&$skip=1`);
    const unknown = await getJson(gw, '/v1/groups/nope/members');
    expect([unknown.status, unknown.body.value, unknown.body['@odata.nextLink']]).toEqual([200, [], undefined]);
  });

  it('authenticates with "Bearer <key>" or the bare key; a missing, wrong or lower-case "bearer" key is 401, before routing', async () => {
    const at = (headers: Record<string, string>, path = '/v1/files') => fetch(gw.url + path, { headers });
    expect((await at({ Authorization: 'Bearer sample-key' })).status).toBe(200);
    expect((await at({ Authorization: 'sample-key' })).status).toBe(200);
    expect((await at({ Authorization: 'Bearer   sample-key  ' })).status).toBe(200);
    for (const headers of [{}, { Authorization: 'Bearer wrong' }, { Authorization: 'bearer sample-key' }, { Authorization: 'Bearer ' }] as Array<
      Record<string, string>
    >) {
      const res = await at(headers);
      expect([res.status, await res.json()]).toEqual([401, { error: { code: 'AUTHENTICATION_FAILED', message: 'Bearer token missing or invalid.' } }]);
    }
    expect((await at({}, '/v1/no-such-route')).status).toBe(401);
    await withGateway({ key: '' }, async (open) => expect((await fetch(`${open.url}/v1/files`)).status).toBe(200));
  });

  it("answers unknown routes with Flask's 404 text in the envelope, other methods with Flask's HTML 405, and HEAD like GET", async () => {
    const missing = await getJson(gw, '/v1/no-such-route');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      error: { code: 'NOT_FOUND', message: expect.stringMatching(/^404 Not Found: The requested URL was not found on the server\./) },
    });
    expect((await getJson(gw, '/v1/files/')).status).toBe(404);
    const post = await call(gw, '/v1/files', { method: 'POST' });
    expect([post.status, post.headers.get('content-type'), post.headers.get('allow')]).toEqual([405, 'text/html; charset=utf-8', 'GET, HEAD, OPTIONS']);
    expect(await post.text()).toContain('<title>405 Method Not Allowed</title>');
    const head = await call(gw, '/v1/files/kb-002/download', { method: 'HEAD' });
    expect([head.status, head.headers.get('content-length'), await head.text()]).toEqual([200, String(placeholderBytes(SAMPLE_FILES[1]!).length), '']);
  });

  it.each<SampleEndpoint>(['files', 'file', 'download', 'permissions', 'users', 'groups', 'members'])(
    'fails the %s source with 502 EXTERNAL_REST_ERROR and the source error text',
    async (endpoint) => {
      const path = {
        files: '/v1/files',
        file: '/v1/files/kb-001',
        download: '/v1/files/kb-002/download',
        permissions: '/v1/files/kb-001/permissions',
        users: '/v1/users',
        groups: '/v1/groups',
        members: '/v1/groups/group-finance/members',
      }[endpoint];
      await withGateway({ failSource: endpoint }, async (g) => {
        const res = await getJson(g, path);
        expect(res.status).toBe(502);
        expect(res.body).toEqual({
          error: {
            code: 'EXTERNAL_REST_ERROR',
            message: expect.stringMatching(/^503 Server Error: Service Unavailable for url: https:\/\/source\.example\.internal\//),
          },
        });
        expect((await getJson(g, '/v1/files/permissions/metadata')).status).toBe(200); // the other endpoints still answer
      });
    },
  );

  it('fails an unreachable source with 500 INTERNAL_SERVER_ERROR', async () => {
    await withGateway({ failSource: { endpoint: 'users', as: 'unreachable' } }, async (g) => {
      const res = await getJson(g, '/v1/users');
      expect([res.status, res.body.error.code, res.body.error.message]).toEqual([
        500,
        'INTERNAL_SERVER_ERROR',
        expect.stringMatching(/^500 Internal Server Error: /),
      ]);
    });
  });

  it('sends no rate-limit headers (newest); the older revision sends a static 600/599/60 on every response and HTML bodies in list pages', async () => {
    const res = await call(gw, '/v1/files');
    expect([...res.headers.keys()].filter((h) => /ratelimit|rate-limit/i.test(h))).toEqual([]);
    await withGateway({ revision: 'older' }, async (g) => {
      for (const r of [await call(g, '/v1/files'), await call(g, '/v1/files'), await fetch(`${g.url}/v1/files`)]) {
        expect([
          r.status === 401 || r.status === 200,
          r.headers.get('x-ratelimit-limit'),
          r.headers.get('x-ratelimit-remaining'),
          r.headers.get('x-ratelimit-reset'),
        ]).toEqual([true, '600', '599', '60']);
      }
      expect((await getJson(g, '/v1/files')).body.value[0].content.body).toContain('<h1>Getting started');
    });
  });

  it('pages with $top (default 50) and $skip into absolute nextLinks; a $top that is not an integer means the default', async () => {
    await withGateway({ extraFiles: 44 }, async (g) => {
      const first = await getJson(g, '/v1/files');
      expect(first.body.value).toHaveLength(50);
      expect(first.body['@odata.nextLink']).toBe(`${g.url}/v1/files?$top=50&$skip=50`);
      const second = await getJson(g, first.body['@odata.nextLink']);
      expect(second.body.value.map((f: Json) => f.id)).toEqual(['kb-051', 'kb-052']);
      expect(second.body['@odata.nextLink']).toBeUndefined();
      expect((await getJson(g, '/v1/files?$top=abc')).body.value).toHaveLength(50);
      expect((await getJson(g, '/v1/files?$top=1.5')).body['@odata.nextLink']).toBe(`${g.url}/v1/files?$top=50&$skip=50`);
    });
    const ids: string[] = [];
    let next: string | undefined = '/v1/files?$top=3';
    while (next) {
      const page = await getJson(gw, next);
      ids.push(...page.body.value.map((f: Json) => f.id));
      next = page.body['@odata.nextLink'];
    }
    expect(ids).toEqual(SAMPLE_FILES.map((f) => f.id));
    expect((await getJson(gw, '/v1/files?$top=%2B2&$skip=6')).body['@odata.nextLink']).toBeUndefined(); // Python int("+2"); 6 + 2 = 8
  });

  describe('the three real defects, reproduced', () => {
    it('size-mismatch: every binary declares a content.size its download does not have', async () => {
      const list = (await getJson(gw, '/v1/files')).body.value as Json[];
      for (const f of list.filter((x) => x.content.mime_type !== 'text/html')) {
        const bytes = Buffer.from(await (await call(gw, `/v1/files${f.content.download_path}`)).arrayBuffer());
        expect([f.id, bytes.length === f.content.size]).toEqual([f.id, false]);
      }
    });

    it('zero-top-loop: $top=0 answers an empty page whose nextLink is the same request, forever', async () => {
      let url = `${gw.url}/v1/files?$top=0&$skip=3`;
      for (let i = 0; i < 5; i++) {
        const page = await getJson(gw, url);
        expect(page.body.value).toEqual([]);
        expect(page.body['@odata.nextLink']).toBe(url);
        url = page.body['@odata.nextLink'];
      }
      expect((await getJson(gw, '/v1/files/kb-001/permissions?$top=0')).body['@odata.nextLink']).toBe(`${gw.url}/v1/files/kb-001/permissions?$top=0&$skip=0`);
    });

    it('negative-slice: $top=-1 drops the last item, then links to $skip=-1, -2, ... empty pages without end; a negative $skip counts from the end', async () => {
      const first = await getJson(gw, '/v1/files?$top=-1');
      expect(first.body.value.map((f: Json) => f.id)).toEqual(SAMPLE_FILES.slice(0, -1).map((f) => f.id));
      let next: string = first.body['@odata.nextLink'];
      for (let skip = -1; skip >= -12; skip--) {
        expect(next).toBe(`${gw.url}/v1/files?$top=-1&$skip=${skip}`);
        const page = await getJson(gw, next);
        expect(page.body.value).toEqual([]);
        next = page.body['@odata.nextLink'];
      }
      const fromEnd = await getJson(gw, '/v1/files?$skip=-1');
      expect(fromEnd.body.value.map((f: Json) => f.id)).toEqual(['kb-008']);
      expect(fromEnd.body['@odata.nextLink']).toBe(`${gw.url}/v1/files?$top=50&$skip=49`);
      expect((await getJson(gw, '/v1/groups/group-platform/members?$top=-1')).body.value).toEqual([{ type: 'USER', id: 'user-001', name: 'Ada Lind' }]);
    });

    it('defects: false is the same platform-shaped gateway without them', async () => {
      expect(SAMPLE_DEFECTS).toEqual(['size-mismatch', 'zero-top-loop', 'negative-slice']);
      await withGateway({ defects: false }, async (g) => {
        const list = (await getJson(g, '/v1/files')).body.value as Json[];
        const pdf = list.find((f) => f.id === 'kb-002')!;
        const bytes = Buffer.from(await (await call(g, '/v1/files/kb-002/download')).arrayBuffer());
        expect(pdf.content).toEqual({ mime_type: 'application/pdf', download_path: '/kb-002/download', sha1_hash: null, size: bytes.length });
        for (const q of ['$top=0', '$top=-1', '$top=-1&$skip=-1']) {
          const page = await getJson(g, `/v1/files?${q}`);
          expect([q, page.body.value.length, page.body['@odata.nextLink']]).toEqual([q, 8, undefined]);
        }
      });
      await withGateway({ defects: { 'zero-top-loop': false } }, async (g) => {
        expect((await getJson(g, '/v1/files?$top=0')).body['@odata.nextLink']).toBeUndefined();
        expect((await getJson(g, '/v1/files?$top=-1')).body['@odata.nextLink']).toBe(`${g.url}/v1/files?$top=-1&$skip=-1`);
        expect((await getJson(g, '/v1/files')).body.value[1].content.size).toBe(245_760);
      });
    });
  });

  it("adds, by default, what the platform's spec allows beyond the sample: metadata_url, children_url, no status, an upper-case sha1, permissions_hierarchy, a user without state, lists without @odata.context, extra error fields", async () => {
    await withGateway({ specExtras: true }, async (g) => {
      const files = (await getJson(g, '/v1/files')).body.value as Json[];
      expect(files.every((f) => typeof f.metadata_url === 'string' && typeof f.children_url === 'string')).toBe(true);
      expect(files.find((f) => f.id === 'kb-003')).not.toHaveProperty('status');
      const docx = files.find((f) => f.id === 'kb-006');
      const bytes = await (await call(g, '/v1/files/kb-006/download')).arrayBuffer();
      expect(docx?.content.sha1_hash).toBe(crypto.createHash('sha1').update(Buffer.from(bytes)).digest('hex').toUpperCase());
      expect((await getJson(g, '/v1/files/kb-001/permissions')).body.value.permissions_hierarchy).toEqual([]);
      const users = await getJson(g, '/v1/users');
      expect(users.body).not.toHaveProperty('@odata.context');
      expect((users.body.value as Json[]).find((u) => u.id === 'user-003')).toEqual({
        id: 'user-003',
        primary_email_addr: 'chen.wu@wiki.example.internal',
        full_name: 'Chen Wu',
        last_modified_datetime: '2025-01-01',
      });
      expect((await getJson(g, '/v1/files/nope')).body.error).toEqual({ code: 'NOT_FOUND', message: 'File nope not found.', target: '/v1/files/nope' });
    });
  });
});
