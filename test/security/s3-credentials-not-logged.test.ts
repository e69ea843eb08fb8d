import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { generateMixedTree } from '@content-gateway/kit/src/fixtures/mixed-tree';
import { startS3Server, type TestS3Server } from '@content-gateway/kit/src/mocks/s3/start-s3-server';
import { S3BlobStore } from '../../src/blobs/s3-blob-store';
import { createDb } from '../../src/staging/database/create-db';
import { runCli, startCli } from '../e2e/cli-process';

jest.setTimeout(180_000);

/**
 * Issue 30 (1): the S3 store's credentials never reach a log or an error message, whatever the
 * command, the log level, or the failure (the server refusing a bucket, a half-set key pair).
 */
describe('the S3 blob store’s secret access key', () => {
  const secret = `s3-secret-${crypto.randomBytes(16).toString('hex')}`;
  let s3: TestS3Server;
  let dir: string;
  let env: Record<string, string>;
  const output: string[] = [];
  const keep = <T extends { stdout: string; stderr: string }>(r: T): T => {
    output.push(r.stdout, r.stderr);
    return r;
  };

  beforeAll(async () => {
    s3 = await startS3Server({ secretAccessKey: secret });
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-s3-secret-'));
    const root = path.join(dir, 'tree');
    fs.mkdirSync(root);
    generateMixedTree(root, { files: 12, skipped: 0 });
    env = {
      ...s3.env,
      SQLITE_PATH: path.join(dir, 'gw.sqlite'),
      FILESYSTEM_ROOT: root,
      LOG_LEVEL: 'debug',
      GATEWAY_API_KEY: 'secret-test-key-0123456789abcdef',
    };
  });
  afterAll(async () => {
    await s3.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('is in no output of sync, gc-blobs, verify-blobs or serve, at debug level, nor in their errors', async () => {
    expect(keep(await runCli(['sync', 'filesystem'], env)).code).toBe(0);
    const gc = keep(await runCli(['gc-blobs', '--dry-run'], env));
    expect(gc.stdout).toMatch(/^\d+ blobs in the s3 store: 0 unreferenced would be deleted/);
    expect(keep(await runCli(['verify-blobs'], env)).stdout).toMatch(/in the S3 bucket .* 0 missing, 0 corrupt\.\n$/);

    const serve = startCli(['serve'], { ...env, PORT: '0', HOST: '127.0.0.1', DEMO_CONTENT: 'off' });
    const [, port] = /localhost:(\d+)\//.exec(await serve.waitForLine((l) => /listening on http:\/\/localhost:\d+\//.test(l))) ?? [];
    const db = createDb({ sqlitePath: env.SQLITE_PATH as string });
    const [kept, lost] = (await db('files').whereNotNull('blob_key').orderBy('id').limit(2).select('id', 'blob_key')) as Array<{
      id: string;
      blob_key: string;
    }>;
    // One file's content gone from the bucket: the gateway logs the store it read (CONTENT_UNAVAILABLE).
    const blobs = new S3BlobStore(
      { bucket: s3.bucket, prefix: 'blobs', region: s3.region, endpoint: s3.endpoint, forcePathStyle: true, credentials: s3.credentials },
      db,
    );
    await blobs.delete(lost?.blob_key ?? '');
    blobs.close();
    await db.destroy();
    const download = (id = '') =>
      fetch(`http://127.0.0.1:${port}/v1/files/${encodeURIComponent(id)}/download`, { headers: { Authorization: `Bearer ${env.GATEWAY_API_KEY}` } });
    const whole = await download(kept?.id);
    expect(whole.status).toBe(200);
    await whole.arrayBuffer();
    const unavailable = await download(lost?.id);
    expect(unavailable.status).toBeGreaterThanOrEqual(500);
    await unavailable.arrayBuffer();
    serve.child.kill('SIGTERM');
    await serve.exited;
    output.push(serve.stdout(), serve.stderr());

    // A bucket the server does not have: the commands fail, naming the bucket, not the key.
    const missing = keep(await runCli(['verify-blobs'], { ...env, S3_BUCKET: 'no-such-bucket' }));
    expect(missing.code).not.toBe(0);
    const halfSet = keep(await runCli(['verify-blobs'], { ...env, S3_ACCESS_KEY_ID: '' }));
    expect(halfSet.stderr).toContain('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY: set both');

    const all = output.join('\n');
    expect(all.length).toBeGreaterThan(1000);
    expect(all).toContain(`S3 bucket ${s3.bucket}`);
    expect(all).not.toContain(secret);
  });
});
