import crypto from 'node:crypto';
import fs from 'node:fs';
import http from 'node:http';
import { FsBlobStore } from '../../src/blobs/fs-blob-store';
import { AUTH, startTestGateway, type TestGateway } from '../helpers/test-gateway';
import { databaseKinds } from '../helpers/test-databases';
import { htmlFile } from '../helpers/staging-fixtures';
import { readRest } from '../helpers/read-rest';

/**
 * Issue 14 (7): a file whose blob is gone from the store (a partial restore, a disk cleaned by
 * hand) was a bare 500 INTERNAL_SERVER_ERROR, while /v1/files/{id} kept advertising its
 * download_path. It is now CONTENT_UNAVAILABLE: still a 5xx, so the platform retries it on a
 * later crawl (after a sync or `verify-blobs --repair` restored it) instead of dropping the file
 * as it would on a 404; no Retry-After, since retrying within seconds cannot help; counted on
 * /metrics by reason and logged once with the file's id.
 */
const METRICS_TOKEN = 'metrics-token-0123456789abcdef';
const PDF = 'application/pdf';
const setups = databaseKinds.flatMap((kind) => (['directory', 'database'] as const).map((store) => [kind, store] as const));

describe.each(setups)('a download whose content the blob store lost, on %s, blobs in the %s store', (kind, store) => {
  let gw: TestGateway;
  const stage = async (id: string, bytes: Buffer) => {
    const blob = await gw.blobs.put(bytes);
    await gw.writer.putFiles([
      { file: htmlFile(id, { mime_type: PDF, body_html: null, blob_key: blob.key, sha256: blob.sha256, sha1: blob.sha1, size: blob.size }), permissions: [] },
    ]);
    return blob;
  };
  const scrape = async () => (await fetch(`${gw.url}/metrics`, { headers: { Authorization: `Bearer ${METRICS_TOKEN}` } })).text();
  const unavailable = (text: string, reason: string) =>
    Number(new RegExp(`content_gateway_download_content_unavailable_total\\{reason="${reason}"\\} (\\d+)`).exec(text)?.[1] ?? 0);
  /** Log lines that name the file (the request log line names only the URL). */
  const linesAbout = (id: string) =>
    gw.logLines.map((l) => JSON.parse(l) as { msg: string; level: number; err?: { fileId?: string; reason?: string } }).filter((l) => l.err?.fileId === id);

  beforeAll(async () => {
    gw = await startTestGateway(kind, { blobStore: store, metricsToken: METRICS_TOKEN });
  });
  afterAll(() => gw.close());

  it('answers 500 CONTENT_UNAVAILABLE (no Retry-After) for a missing blob, counts it by reason and logs it once with the file id', async () => {
    const blob = await stage('test:gone', crypto.randomBytes(5000));
    await gw.blobs.delete(blob.key);
    const meta = await gw.get('/v1/files/test%3Agone', AUTH);
    expect(meta.body.value.content.download_path).toBe('/test%3Agone/download');

    const before = unavailable(await scrape(), 'missing');
    const res = await gw.get('/v1/files/test%3Agone/download', AUTH);
    expect(res.status).toBe(500);
    expect(res.headers['retry-after']).toBeUndefined();
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body).toEqual({ error: { code: 'CONTENT_UNAVAILABLE', message: expect.stringContaining('"test:gone"') } });
    expect(res.body.error.message).toContain(res.headers['x-request-id']);
    const head = await gw.send('head', '/v1/files/test%3Agone/download', AUTH);
    expect(head.status).toBe(500);
    expect(unavailable(await scrape(), 'missing')).toBe(before + 2);
    const lines = linesAbout('test:gone');
    expect(lines).toHaveLength(2); // one per request
    expect(lines[0]).toMatchObject({ level: 50, err: { fileId: 'test:gone', reason: 'missing' } });
  });

  it('answers CONTENT_UNAVAILABLE when the stored blob has not the size of the file (truncated)', async () => {
    const blob = await stage('test:short', crypto.randomBytes(5000));
    if (store === 'directory') fs.truncateSync((gw.blobs as FsBlobStore).pathOf(blob.key), 1000);
    else await gw.database.db('blobs').where({ key: blob.key }).update({ size: 1000 });
    const res = await gw.get('/v1/files/test%3Ashort/download', AUTH);
    expect([res.status, res.body.error?.code]).toEqual([500, 'CONTENT_UNAVAILABLE']);
    expect(linesAbout('test:short')).toMatchObject([{ err: { reason: 'size_mismatch' } }]);
    expect(unavailable(await scrape(), 'size_mismatch')).toBeGreaterThanOrEqual(1);
  });

  if (store === 'database') {
    it('answers CONTENT_UNAVAILABLE when the read fails before the first byte, and cuts the answer when it fails midway', async () => {
      const blob = await stage('test:holes', crypto.randomBytes(300 * 1024));
      const { content_id: contentId } = (await gw.database.db('blobs').where({ key: blob.key }).first('content_id')) as { content_id: string };
      await gw.database.db('blob_chunks').where({ content_id: contentId, seq: 2 }).delete();
      const before = unavailable(await scrape(), 'read_failed');
      const cut = await new Promise<http.IncomingMessage>((resolve, reject) =>
        http.get(`${gw.url}/v1/files/test%3Aholes/download`, { headers: AUTH }, resolve).on('error', reject),
      );
      expect(cut.statusCode).toBe(200);
      expect(await readRest(cut)).toBeLessThan(blob.size);
      await gw.database.db('blob_chunks').where({ content_id: contentId, seq: 0 }).delete();
      const res = await gw.get('/v1/files/test%3Aholes/download', AUTH);
      expect([res.status, res.body.error?.code]).toEqual([500, 'CONTENT_UNAVAILABLE']);
      expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(res.headers['checksum-sha256']).toBeUndefined();
      expect(unavailable(await scrape(), 'read_failed')).toBe(before + 2);
      expect(linesAbout('test:holes').map((l) => l.err?.reason)).toEqual(['read_failed', 'read_failed']);
    });
  }
});
