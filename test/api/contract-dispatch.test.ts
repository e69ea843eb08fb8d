import fc from 'fast-check';
import { rawExchange } from '../helpers/raw-http';
import { htmlFile } from '../helpers/staging-fixtures';
import { AUTH, startTestGateway, type TestGateway } from '../helpers/test-gateway';

/**
 * The answers of the contract dispatcher (`src/http/contract-dispatcher.ts`) that openapi-backend's
 * `handleRequest` gave before it: the same codes, messages and order of checks.
 */
describe('requests routed by the contract', () => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway('sqlite');
  });
  afterAll(() => gw.close());

  const error = (res: { status: number; body: { error?: { code: string; message: string } } }) => [res.status, res.body.error?.code, res.body.error?.message];

  it('answers an unknown path with 404 and a known path with another method with 405, naming both', async () => {
    expect(error(await gw.get('/v2/files?$top=1', AUTH))).toEqual([404, 'NOT_FOUND', 'No route for GET /v2/files.']);
    expect(error(await gw.get('/v1/nothing//x/', AUTH))).toEqual([404, 'NOT_FOUND', 'No route for GET /v1/nothing//x/.']);
    // An empty id segment is a raw id path (`resolveRawIdPath`): the file `/download`, which does not exist.
    expect(error(await gw.get('/v1/files//download', AUTH))).toEqual([404, 'NOT_FOUND', 'File "/download" not found.']);
    const post = await gw.send('post', '/v1/files/x/permissions', AUTH);
    expect(error(post)).toEqual([405, 'METHOD_NOT_ALLOWED', 'POST is not allowed on /v1/files/x/permissions; the gateway is read-only.']);
    expect(post.headers.allow).toBe('GET, HEAD');
    // A method HTTP allows but the contract never names: 405 on a known path, 404 elsewhere.
    const known = await fetch(`${gw.url}/v1/users`, { method: 'PROPFIND', headers: AUTH });
    expect([known.status, ((await known.json()) as { error: { message: string } }).error.message]).toEqual([
      405,
      'PROPFIND is not allowed on /v1/users; the gateway is read-only.',
    ]);
    const unknown = await fetch(`${gw.url}/nowhere`, { method: 'PROPFIND', headers: AUTH });
    expect([unknown.status, ((await unknown.json()) as { error: { message: string } }).error.message]).toEqual([404, 'No route for PROPFIND /nowhere.']);
  });

  it('ignores a trailing slash and serves the literal path before the template it also matches', async () => {
    expect((await gw.get('/v1/files/', AUTH)).status).toBe(200);
    const metadata = await gw.get('/v1/files/permissions/metadata/', AUTH);
    expect([metadata.status, metadata.body.model]).toEqual([200, 'resource_permission']);
  });

  it('checks the credential before the parameters, and names the invalid parameter', async () => {
    expect(error(await gw.get('/v1/files?$top=abc'))).toEqual([401, 'AUTHENTICATION_FAILED', 'Bearer token missing or invalid.']);
    expect(error(await gw.get('/v1/files?$top=abc', AUTH))).toEqual([400, 'INPUT_VALIDATION_FAILED', 'Invalid request: $top must be integer.']);
    expect(error(await gw.get('/v1/users?$top=0&$skip=-1', AUTH))).toEqual([400, 'INPUT_VALIDATION_FAILED', 'Invalid request: $top must be >= 1.']);
    const range = await gw.get('/v1/files/x/download', { ...AUTH, Range: `bytes=${'1'.repeat(1100)}-` });
    expect(error(range)).toEqual([400, 'INPUT_VALIDATION_FAILED', 'Invalid request: .header.range must NOT have more than 1024 characters.']);
  });

  it('answers the probes without a credential and everything else under /v1 only with one', async () => {
    expect((await gw.get('/healthz')).status).toBe(200);
    expect((await gw.get('/healthz', { Authorization: 'Bearer wrong' })).status).toBe(200);
    for (const path of [
      '/v1/files',
      '/v1/files/x',
      '/v1/files/x/download',
      '/v1/files/x/permissions',
      '/v1/files/permissions/metadata',
      '/v1/users',
      '/v1/groups',
      '/v1/groups/g/members',
    ]) {
      expect([path, ...error(await gw.get(path, { Authorization: 'Bearer wrong' }))]).toEqual([
        path,
        401,
        'AUTHENTICATION_FAILED',
        'Bearer token missing or invalid.',
      ]);
    }
  });

  it('never serves /v1 without a credential, and answers hostile paths and queries in the envelope, never with a 5xx', async () => {
    await gw.writer.putFiles([{ file: htmlFile('a/b'), permissions: [{ type: 'USER', id: 'u:a' }] }]);
    const segment = fc.constantFrom(
      'v1',
      'V1',
      'files',
      'Files',
      'groups',
      'users',
      'members',
      'permissions',
      'metadata',
      'download',
      'a%2Fb',
      'a%252Fb',
      '%2F',
      '%E0%A4%A',
      '%ZZ',
      '%00',
      '%66iles',
      '..',
      '.',
      '',
      'x;y',
      'a/b',
    );
    const path = fc.tuple(
      fc.constantFrom('/v1/', '/v1/files/', '/v1/groups/', '//v1/', '/'),
      fc.array(segment, { maxLength: 4 }),
      fc.constantFrom('', '/', '//'),
    );
    const query = fc.constantFrom(
      '',
      '?$top=1&$top=2',
      '?$top=0',
      '?$top=100000',
      '?$top=1.5',
      '?$top[a]=1',
      '?$skiptoken=zzz',
      '?$skiptoken=a&$skiptoken=b',
      '?unknown=1',
      '?$top=%E0%A4%A',
      '?%E0%A4%A=1',
    );
    const method = fc.constantFrom('GET', 'HEAD', 'OPTIONS', 'POST', 'DELETE');
    await fc.assert(
      fc.asyncProperty(method, path, query, fc.boolean(), async (m, [head, segments, tail], q, withAuth) => {
        const target = `${head}${segments.join('/')}${tail}${q}`;
        const request = `${m} ${target} HTTP/1.1\r\nHost: 127.0.0.1\r\n${withAuth ? `Authorization: ${AUTH.Authorization}\r\n` : ''}Connection: close\r\n\r\n`;
        const [res] = (await rawExchange(gw.url, request, { head: m === 'HEAD', waitMs: 2000 })).responses;
        expect([target, res?.status !== undefined && res.status < 500]).toEqual([target, true]);
        const status = res?.status ?? 0;
        if (!withAuth && target.toLowerCase().startsWith('/v1/')) expect([target, status >= 400]).toEqual([target, true]);
        if (status >= 400 && m !== 'HEAD')
          expect([target, (JSON.parse(res?.body ?? '{}') as { error?: { code?: unknown } }).error?.code]).toEqual([target, expect.any(String)]);
      }),
      { numRuns: 300 },
    );
  });
});
