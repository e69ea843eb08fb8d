import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli, startCli } from '../e2e/cli-process';

/**
 * Issue 29 (12): a gateway started with a BLOB_DIR that does not match its staging database (the
 * demo seeded into one folder, served from another) answers a download with CONTENT_UNAVAILABLE in
 * the contract's envelope, telling the client what the operator runs (`verify-blobs`, a sync,
 * `seed-demo` for the demo) rather than "retry after the next sync", and without the server's
 * paths; the server's log line names the store it read and the remedy.
 */
jest.setTimeout(120_000);

describe('content-gateway serve with a BLOB_DIR that does not match staging', () => {
  let dir: string;
  beforeAll(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-blob-mismatch-'));
  });
  afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('answers a download with CONTENT_UNAVAILABLE pointing at verify-blobs / seed-demo, and logs which store and what to run', async () => {
    const key = 'mismatch-key-0123456789abcdef';
    const base = { SQLITE_PATH: path.join(dir, 'gw.sqlite'), GATEWAY_API_KEY: key };
    const seeded = await runCli(['seed-demo'], { ...base, BLOB_DIR: path.join(dir, 'seeded-blobs') });
    expect({ code: seeded.code, stderr: seeded.stderr }).toEqual({ code: 0, stderr: '' });

    const other = path.join(dir, 'other-blobs');
    const server = startCli(['serve'], { ...base, BLOB_DIR: other, PORT: '0', LOG_LEVEL: 'info' });
    try {
      const [, port] = /listening on http:\/\/localhost:(\d+)\//.exec(await server.waitForLine((l) => /listening on http/.test(l), 'listening')) ?? [];
      const get = (p: string) => fetch(`http://127.0.0.1:${port}${p}`, { headers: { Authorization: `Bearer ${key}` } });
      const files = (await (await get('/v1/files?$top=100')).json()) as { value: Array<{ id: string; content: { mime_type: string } }> };
      const pdf = files.value.find((f) => f.content.mime_type === 'application/pdf');
      expect(pdf).toBeDefined();

      const res = await get(`/v1/files/${encodeURIComponent(pdf?.id ?? '')}/download`);
      expect(res.status).toBe(500); // the contract's status for CONTENT_UNAVAILABLE: a 5xx the platform retries, never a 404 that drops the file
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe('CONTENT_UNAVAILABLE');
      expect(body.error.message).toMatch(/blob store .*does not hold this file's content/);
      expect(body.error.message).toMatch(/verify-blobs/);
      expect(body.error.message).toMatch(/seed-demo/);
      expect(body.error.message).not.toMatch(/next sync/);
      expect(body.error.message).not.toContain(dir); // no server path on the wire

      const log = await server.waitForLog((l) => (l.err as { fileId?: string } | undefined)?.fileId === pdf?.id, 'the log line of the failed download');
      const text = JSON.stringify(log);
      expect(text).toContain(other); // the store the gateway read
      expect(text).toMatch(/verify-blobs/);
      expect(text).toMatch(/seed-demo/);
    } finally {
      server.child.kill('SIGTERM');
      await server.exited;
    }
  });
});
