import pino from 'pino';
import { createFilesystemAdapter } from '../adapters/filesystem';
import type { BlobStore } from '../blobs/blob-store';
import type { Logger } from '../logging/create-logger';
import type { Db } from '../staging/database/create-db';
import { runSync } from '../sync/run-sync';
import { DEMO_CORPUS_DIR } from './demo-corpus-dir';

export { DEMO_CORPUS_DIR } from './demo-corpus-dir';

/** The demo's source name: its ids are `demo:<relative path>`, like any filesystem adapter's. */
export const DEMO_SOURCE = 'demo';
/** Where the invented intranet would show the documents (their `external_url`). */
export const DEMO_BASE_URL = 'https://intranet.northwind.example/kb';

export interface SeedSummary {
  files: number;
  users: number;
  groups: number;
}

export interface SeedDemoOptions {
  /** The sync clock: what a first seed stamps as `last_modified_datetime`. Default: now. */
  now?: Date;
  /** Another corpus folder (tests). Default: the bundled one. */
  root?: string;
  logger?: Logger;
}

/**
 * Loads the bundled demo corpus into staging so a first start serves a real gateway. It is an
 * ordinary full sync of the filesystem adapter over `DEMO_CORPUS_DIR`, so the demo exercises the
 * same code as real content, and seeding again changes nothing that did not change on disk (same
 * rows, same `last_modified_datetime`). `seedDemo(db, blobs, now)` is kept for older callers.
 * Throws when the sync does not succeed cleanly: the bundled corpus must load without failures.
 */
export async function seedDemo(db: Db, blobs: BlobStore, options: Date | SeedDemoOptions = {}): Promise<SeedSummary> {
  const { now, root = DEMO_CORPUS_DIR, logger = pino({ level: 'silent' }) } = options instanceof Date ? { now: options } : options;
  const adapter = createFilesystemAdapter({ root, sourceName: DEMO_SOURCE, baseUrl: DEMO_BASE_URL });
  // The demo corpus is ours: when a new release ships fewer documents, they simply go.
  const summary = await runSync(adapter, { db, blobs, logger, ...(now ? { now: () => now } : {}) }, { mode: 'full', allowMassDelete: true });
  if (summary.status !== 'succeeded' || summary.counts.failed > 0) {
    const why = summary.error ?? summary.failures.join('\n');
    throw new Error(`Loading the demo corpus from ${root} ${summary.status === 'succeeded' ? 'had failures' : summary.status}: ${why}`);
  }
  const count = async (table: 'files' | 'users' | 'groups'): Promise<number> => {
    const query = db(table).where({ source: DEMO_SOURCE });
    if (table === 'files') query.andWhere({ status: 'active' });
    const row = (await query.count({ n: '*' }).first()) as { n: number | string } | undefined;
    return Number(row?.n ?? 0);
  };
  return { files: await count('files'), users: await count('users'), groups: await count('groups') };
}
