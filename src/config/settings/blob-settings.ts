import { z } from 'zod';
import { setting } from './setting-spec';
import { bool } from './setting-values';

/** Where binary file content is kept. */
export const blobSettings = {
  blobStore: setting({
    env: 'BLOB_STORE',
    schema: z.enum(['directory', 'database', 's3'], { message: 'expected directory, database or s3' }),
    default: 'directory',
    description:
      'Where binary file content is kept: `directory` (content-addressed files under `BLOB_DIR`), `database` (in the staging database, in 64 KiB chunks: for a gateway and a sync that share a database but no folder) or `s3` (objects in the bucket `S3_BUCKET` of Amazon S3 or an S3-compatible server such as MinIO: for replicas that share no folder; docs/deployment.md).',
  }),
  blobDir: setting({
    env: 'BLOB_DIR',
    schema: z.string().min(1),
    default: './data/blobs',
    description: 'Directory of the content-addressed blob store that holds binary file content (with `BLOB_STORE=directory`).',
  }),
  s3Bucket: setting({
    env: 'S3_BUCKET',
    schema: z
      .string()
      .regex(/^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/, { message: 'expected an S3 bucket name (3-63 lower-case letters, digits, dots, hyphens)' })
      .optional(),
    description: 'Bucket that holds binary file content with `BLOB_STORE=s3` (required then; the gateway does not create it).',
  }),
  s3Prefix: setting({
    env: 'S3_PREFIX',
    schema: z
      .string()
      .regex(/^[A-Za-z0-9._-]+(\/[A-Za-z0-9._-]+)*$/, { message: 'expected key segments of letters, digits, dots, hyphens, underscores separated by /' }),
    default: 'blobs',
    description:
      'Key prefix of the blobs in `S3_BUCKET`: a blob is `<prefix>/ab/cd/<sha256>`. Give each staging database its own prefix (a garbage collection deletes what its staging does not point at).',
  }),
  s3Endpoint: setting({
    env: 'S3_ENDPOINT',
    schema: z.url({ message: 'expected an absolute URL such as http://minio:9000' }).optional(),
    description: 'URL of an S3-compatible server (MinIO, Ceph, R2…). Unset: Amazon S3 in `S3_REGION`.',
  }),
  s3Region: setting({
    env: 'S3_REGION',
    schema: z.string().min(1),
    default: 'us-east-1',
    description: 'Region of the bucket (S3-compatible servers mostly accept any; MinIO and s3rver take `us-east-1`).',
  }),
  s3ForcePathStyle: setting({
    env: 'S3_FORCE_PATH_STYLE',
    schema: bool,
    default: 'false',
    description:
      'Address the bucket in the path (`http://host/bucket/key`) rather than the host name (`http://bucket.host/key`): `true` for most S3-compatible servers (MinIO, s3rver) reached by an address or a single host name.',
  }),
  s3AccessKeyId: setting({
    env: 'S3_ACCESS_KEY_ID',
    schema: z.string().min(1).optional(),
    description:
      "Access key id for the bucket, with `S3_SECRET_ACCESS_KEY`. Unset: the AWS SDK's usual credential chain (`AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`, `AWS_PROFILE` and the shared files, web identity, the container's or the instance's role). Never logged.",
    secret: true,
  }),
  s3SecretAccessKey: setting({
    env: 'S3_SECRET_ACCESS_KEY',
    schema: z.string().min(1).optional(),
    description: 'Secret access key for the bucket, with `S3_ACCESS_KEY_ID` (set both or neither). Never logged.',
    secret: true,
  }),
} as const;
