import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import S3rver from 's3rver';

/** The credentials s3rver checks signatures against (its documented pair). */
export const S3RVER_CREDENTIALS = { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } as const;

export interface TestS3Server {
  /** `http://127.0.0.1:<port>`: address the bucket in the path (`forcePathStyle`). */
  endpoint: string;
  bucket: string;
  region: string;
  credentials: { accessKeyId: string; secretAccessKey: string };
  /** The settings a gateway process takes to use this server (`BLOB_STORE=s3` and the rest). */
  env: Record<string, string>;
  close(): Promise<void>;
}

/**
 * A real S3-compatible server (s3rver, objects in a temporary folder) on a loopback port the OS
 * chooses, with one empty bucket: the outside world for the S3 blob store's tests and benchmarks.
 * `secretAccessKey`: a secret of the test's own (to check it never reaches a log); `bucket`: its name.
 */
export async function startS3Server(options: { secretAccessKey?: string; bucket?: string } = {}): Promise<TestS3Server> {
  const directory = fs.mkdtempSync(path.join(os.tmpdir(), 's3rver-'));
  const bucket = options.bucket ?? `blobs-${crypto.randomBytes(4).toString('hex')}`;
  // s3rver knows one key pair; another secret is taken by accepting any well-formed signature.
  const allowMismatchedSignatures = options.secretAccessKey !== undefined;
  const server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, allowMismatchedSignatures, configureBuckets: [{ name: bucket }] });
  const { port } = await server.run();
  const endpoint = `http://127.0.0.1:${port}`;
  const credentials = { ...S3RVER_CREDENTIALS, ...(options.secretAccessKey ? { secretAccessKey: options.secretAccessKey } : {}) };
  return {
    endpoint,
    bucket,
    region: 'us-east-1',
    credentials,
    env: {
      BLOB_STORE: 's3',
      S3_ENDPOINT: endpoint,
      S3_BUCKET: bucket,
      S3_REGION: 'us-east-1',
      S3_FORCE_PATH_STYLE: 'true',
      S3_ACCESS_KEY_ID: credentials.accessKeyId,
      S3_SECRET_ACCESS_KEY: credentials.secretAccessKey,
      // The AWS SDK's documented switch for its warning, once per process, that its releases from
      // January 2027 need Node 22: tests compare a child's stderr with ''.
      AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true',
    },
    close: async () => {
      await server.close();
      fs.rmSync(directory, { recursive: true, force: true });
    },
  };
}
