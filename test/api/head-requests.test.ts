import crypto from 'node:crypto';
import { AUTH, startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { databaseKinds } from '../helpers/test-databases';
import { group, htmlFile, user } from '../helpers/staging-fixtures';

/**
 * Issue 14 (7): HEAD is served wherever GET is, with GET's status and headers and no body (RFC
 * 9110 §9.3.2); a download's HEAD says what the download would be without reading it.
 */
const VARYING = ['date', 'x-request-id', 'x-ratelimit-remaining', 'x-ratelimit-reset', 'connection', 'keep-alive'];

describe.each(databaseKinds)('HEAD on %s', (kind) => {
  let gw: TestGateway;
  const bytes = crypto.randomBytes(100_000);

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    const blob = await gw.blobs.put(bytes);
    await gw.writer.putFiles([
      { file: htmlFile('test:article'), permissions: [{ type: 'GROUP', id: 'test:team' }] },
      {
        file: htmlFile('test:deck', {
          mime_type: 'application/pdf',
          body_html: null,
          blob_key: blob.key,
          sha256: blob.sha256,
          sha1: blob.sha1,
          size: blob.size,
        }),
        permissions: [],
      },
    ]);
    await gw.writer.putUsers([user('test:ada')]);
    await gw.writer.putGroups([{ group: group('test:team'), members: [{ type: 'USER', id: 'test:ada' }] }]);
  });
  afterAll(() => gw.close());

  /** GET's headers, without those that differ from one answer to the next. */
  const stable = (headers: Record<string, unknown>) => Object.fromEntries(Object.entries(headers).filter(([k]) => !VARYING.includes(k)));

  it.each([
    ['/v1/files', AUTH],
    ['/v1/files?$top=1', AUTH],
    ['/v1/files/test%3Aarticle', AUTH],
    ['/v1/files/test:article', AUTH],
    ['/v1/files/test%3Adeck/download', AUTH],
    ['/v1/files/test%3Aarticle/permissions', AUTH],
    ['/v1/files/permissions/metadata', AUTH],
    ['/v1/users', AUTH],
    ['/v1/groups', AUTH],
    ['/v1/groups/test%3Ateam/members', AUTH],
    ['/healthz', {}],
    ['/readyz', {}],
    ['/openapi.json', {}],
  ] as const)('answers HEAD %s with the status and headers of GET and no body', async (path, headers) => {
    const get = await fetch(`${gw.url}${path}`, { headers });
    const getBody = Buffer.from(await get.arrayBuffer());
    // Checked against the contract, except /openapi.json, which is outside it.
    if (path !== '/openapi.json') await gw.send('head', path, headers);
    const head = await fetch(`${gw.url}${path}`, { method: 'HEAD', headers });
    expect([head.status, get.status]).toEqual([200, 200]);
    expect(stable(Object.fromEntries(head.headers))).toEqual(stable(Object.fromEntries(get.headers)));
    expect(Number(head.headers.get('content-length'))).toBe(getBody.length);
    expect((await head.arrayBuffer()).byteLength).toBe(0);
  });

  it('answers a ranged and a conditional HEAD of a download as GET would (206 with Content-Range, 304)', async () => {
    const url = '/v1/files/test%3Adeck/download';
    const ranged = await gw.send('head', url, { ...AUTH, Range: 'bytes=10-19' });
    expect([ranged.status, ranged.headers['content-range'], ranged.headers['content-length']]).toEqual([206, `bytes 10-19/${bytes.length}`, '10']);
    const etag = `"${crypto.createHash('sha256').update(bytes).digest('hex')}"`;
    expect((await gw.send('head', url, { ...AUTH, 'If-None-Match': etag })).status).toBe(304);
  });

  it('answers HEAD of what does not exist, or without credentials, with the error status and no body', async () => {
    for (const [path, headers, status] of [
      ['/v1/files/test%3Anope', AUTH, 404],
      ['/v1/files/test%3Aarticle/download', AUTH, 404],
      ['/v1/files', {}, 401],
      ['/v2/files', AUTH, 404],
    ] as const) {
      const head = await gw.send('head', path, headers);
      expect([path, head.status, head.headers['content-type']]).toEqual([path, status, 'application/json; charset=utf-8']);
      expect((await (await fetch(`${gw.url}${path}`, { method: 'HEAD', headers })).arrayBuffer()).byteLength).toBe(0);
    }
  });

  it('still refuses the other methods with 405, naming GET and HEAD in Allow', async () => {
    for (const method of ['post', 'put', 'delete', 'patch'] as const) {
      const res = await gw.send(method, '/v1/files', AUTH);
      expect([method, res.status, res.headers.allow, res.body.error?.code]).toEqual([method, 405, 'GET, HEAD', 'METHOD_NOT_ALLOWED']);
    }
  });
});
