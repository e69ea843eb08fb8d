import crypto from 'node:crypto';
import { AUTH, startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { databaseKinds } from '../helpers/test-databases';
import { at, htmlFile } from '../helpers/staging-fixtures';
import { startS3Server, type TestS3Server } from '@content-gateway/kit/src/mocks/s3/start-s3-server';

const PPTX = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';
const sha256 = (b: Buffer) => crypto.createHash('sha256').update(b).digest('hex');

const setups = databaseKinds.flatMap((kind) => (['directory', 'database', 's3'] as const).map((store) => [kind, store] as const));

// A real S3-compatible server on loopback for the `s3` store.
let s3: TestS3Server;
beforeAll(async () => {
  s3 = await startS3Server();
});
afterAll(() => s3.close());

describe.each(setups)('GET /v1/files/{id}/download on %s, blobs in the %s store', (kind, store) => {
  let gw: TestGateway;
  const bytes = crypto.randomBytes(3 * 1024 * 1024 + 17);
  const url = '/v1/files/test%3Adeck/download';

  beforeAll(async () => {
    gw = await startTestGateway(kind, { blobStore: store, s3 });
    const blob = await gw.blobs.put(bytes);
    const binary = { mime_type: PPTX, body_html: null, blob_key: blob.key, sha256: blob.sha256, sha1: blob.sha1, size: blob.size };
    await gw.writer.putFiles([
      { file: htmlFile('test:deck', { ...binary, name: 'Q3 "all-hands"\r\nslides ☕', modified_at: at(60) }), permissions: [] },
      { file: htmlFile('test:old-deck', { ...binary, status: 'deleted' }), permissions: [] },
      { file: htmlFile('test:article'), permissions: [] },
    ]);
  });
  afterAll(() => gw.close());

  const download = (headers: Record<string, string> = {}) => gw.get(url, { ...AUTH, ...headers });

  it('streams the whole file, byte for byte equal to Checksum-SHA256, Content-Length and size', async () => {
    await gw.get(url, AUTH); // contract check of the headers
    const raw = await fetch(`${gw.url}${url}`, { headers: AUTH });
    const body = Buffer.from(await raw.arrayBuffer());
    expect(raw.status).toBe(200);
    expect(raw.headers.get('content-type')).toBe(PPTX);
    expect(raw.headers.get('checksum-sha256')).toBe(sha256(bytes));
    expect(sha256(body)).toBe(raw.headers.get('checksum-sha256'));
    expect(Number(raw.headers.get('content-length'))).toBe(bytes.length);
    expect(body.equals(bytes)).toBe(true);
    expect(raw.headers.get('etag')).toBe(`"${sha256(bytes)}"`);
    expect(raw.headers.get('last-modified')).toBe(new Date(at(60)).toUTCString());
    expect(raw.headers.get('accept-ranges')).toBe('bytes');
    expect(raw.headers.get('x-content-type-options')).toBe('nosniff');
  });

  it('sends a safe Content-Disposition for a hostile title (no quotes or line breaks leak through)', async () => {
    const res = await download();
    const disposition = res.headers['content-disposition'] as string;
    expect(disposition).toMatch(/^attachment; filename="(?:[^"\\\r\n]|\\.)*\.pptx"; filename\*=UTF-8''/);
    expect(disposition).not.toMatch(/[\r\n]/);
    expect(decodeURIComponent(disposition.split("UTF-8''")[1] as string)).toBe('Q3 "all-hands" slides ☕.pptx');
  });

  it('answers a byte range with 206 and exactly those bytes', async () => {
    const raw = await fetch(`${gw.url}${url}`, { headers: { ...AUTH, Range: 'bytes=1000-1999' } });
    expect(raw.status).toBe(206);
    expect(raw.headers.get('content-range')).toBe(`bytes 1000-1999/${bytes.length}`);
    expect(Buffer.from(await raw.arrayBuffer()).equals(bytes.subarray(1000, 2000))).toBe(true);
    // Across 64 KiB and 256 KiB boundaries (where the stores split content into chunks).
    const across = await fetch(`${gw.url}${url}`, { headers: { ...AUTH, Range: 'bytes=262000-786500' } });
    expect(Buffer.from(await across.arrayBuffer()).equals(bytes.subarray(262000, 786501))).toBe(true);
    const suffix = await fetch(`${gw.url}${url}`, { headers: { ...AUTH, Range: 'bytes=-10' } });
    expect(Buffer.from(await suffix.arrayBuffer()).equals(bytes.subarray(bytes.length - 10))).toBe(true);
    // The first byte alone (a store's server may widen such a range: the body is still that byte).
    const first = await fetch(`${gw.url}${url}`, { headers: { ...AUTH, Range: 'bytes=0-0' } });
    expect([first.status, first.headers.get('content-range')]).toEqual([206, `bytes 0-0/${bytes.length}`]);
    expect(Buffer.from(await first.arrayBuffer()).equals(bytes.subarray(0, 1))).toBe(true);
  });

  it('answers an unsatisfiable range with 416 in the error envelope (Content-Range: bytes */<size>), and ignores a malformed one', async () => {
    const res = await download({ Range: `bytes=${bytes.length + 5}-` });
    expect(res.status).toBe(416);
    expect(res.headers['content-range']).toBe(`bytes */${bytes.length}`);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.headers['content-disposition']).toBeUndefined();
    expect(res.body).toEqual({
      error: { code: 'RANGE_NOT_SATISFIABLE', message: `The range bytes=${bytes.length + 5}- is outside the file, which has ${bytes.length} bytes.` },
    });
    const head = await gw.send('head', url, { ...AUTH, Range: `bytes=${bytes.length + 5}-` });
    expect([head.status, head.headers['content-range']]).toEqual([416, `bytes */${bytes.length}`]);
    const whole = await fetch(`${gw.url}${url}`, { headers: { ...AUTH, Range: 'pages=1-2' } });
    expect(whole.status).toBe(200);
    await whole.arrayBuffer();
  });

  it('answers If-None-Match with the current ETag by 304, and If-Range with a stale one by the whole file', async () => {
    const etag = `"${sha256(bytes)}"`;
    expect((await download({ 'If-None-Match': etag })).status).toBe(304);
    expect((await download({ 'If-None-Match': '"something-else"' })).status).toBe(200);
    const stale = await fetch(`${gw.url}${url}`, { headers: { ...AUTH, Range: 'bytes=0-9', 'If-Range': '"stale"' } });
    expect(stale.status).toBe(200);
    await stale.arrayBuffer();
    const current = await fetch(`${gw.url}${url}`, { headers: { ...AUTH, Range: 'bytes=0-9', 'If-Range': etag } });
    expect(current.status).toBe(206);
    expect(Buffer.from(await current.arrayBuffer()).equals(bytes.subarray(0, 10))).toBe(true);
  });

  it.each([
    ['an HTML file (its content is inline)', '/v1/files/test%3Aarticle/download', /HTML body/],
    ['a deleted file', '/v1/files/test%3Aold-deck/download', /not found/],
    ['an unknown file', '/v1/files/test%3Anope/download', /not found/],
  ])('answers 404 NOT_FOUND for %s', async (_what, path, message) => {
    const res = await gw.get(path, AUTH);
    expect(res.status).toBe(404);
    expect(res.body.error).toEqual({ code: 'NOT_FOUND', message: expect.stringMatching(message) });
  });
});
