import { z } from 'zod';
import { setting } from './setting-spec';

/** Where binary file content is kept. */
export const blobSettings = {
  blobStore: setting({
    env: 'BLOB_STORE',
    schema: z.enum(['directory', 'database'], { message: 'expected directory or database' }),
    default: 'directory',
    description:
      'Where binary file content is kept: `directory` (content-addressed files under `BLOB_DIR`) or `database` (in the staging database, in 64 KiB chunks: for a gateway and a sync that share a database but no folder).',
  }),
  blobDir: setting({
    env: 'BLOB_DIR',
    schema: z.string().min(1),
    default: './data/blobs',
    description: 'Directory of the content-addressed blob store that holds binary file content (with `BLOB_STORE=directory`).',
  }),
} as const;
