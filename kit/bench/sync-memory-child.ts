/**
 * Child process of `syncMemory`: one full sync (or nothing, for the bare baseline) in a process of
 * its own, so the peak its parent samples from /proc is that sync's alone. argv[2] is a JSON
 * `SyncMemoryJob`; the child sends `{ type: 'done', result: SyncMemoryOutcome }` and exits.
 */
import fs from 'node:fs';
import path from 'node:path';
import pino from 'pino';
import { createDb, createFilesystemAdapter, createSqlAdapter, FsBlobStore, migrateLatest, parseDatabaseUrl, resolveSqlMapping, runSync } from 'content-gateway';
import { MEMORY_SQL_MAPPING } from './sync-memory-sources';

export interface SyncMemoryJob {
  adapter: 'filesystem' | 'sql' | 'bare';
  /** The tree's root, or the SQLite source file. */
  source: string;
  /** An empty folder for the staging database and blobs. */
  work: string;
}

export interface SyncMemoryOutcome {
  ms: number;
  status: string;
  files: number;
  /** Bytes of the checkpoint the run stored (JSON). */
  checkpointBytes: number;
  error?: string;
}

async function main(job: SyncMemoryJob): Promise<SyncMemoryOutcome> {
  const db = createDb({ sqlitePath: path.join(job.work, 'staging.sqlite') });
  try {
    await migrateLatest(db);
    if (job.adapter === 'bare') {
      // The same modules loaded and a database opened; no sync.
      await new Promise((resolve) => setTimeout(resolve, 1000));
      return { ms: 0, status: 'bare', files: 0, checkpointBytes: 0 };
    }
    const adapter =
      job.adapter === 'filesystem'
        ? createFilesystemAdapter({ root: job.source, sourceName: 'fs' })
        : createSqlAdapter({
            connection: parseDatabaseUrl(`sqlite:${job.source}`),
            mapping: resolveSqlMapping(MEMORY_SQL_MAPPING),
            sourceName: 'sql',
            pageSize: 500,
          });
    const t0 = performance.now();
    const summary = await runSync(adapter, { db, blobs: new FsBlobStore(path.join(job.work, 'blobs')), logger: pino({ level: 'silent' }) }, { mode: 'full' });
    const ms = performance.now() - t0;
    const row = (await db('sync_checkpoints').where({ source: adapter.name }).first('checkpoint')) as { checkpoint?: string } | undefined;
    return {
      ms,
      status: summary.status,
      files: summary.counts.added,
      checkpointBytes: Buffer.byteLength(row?.checkpoint ?? ''),
      ...(summary.error ? { error: summary.error } : {}),
    };
  } finally {
    await db.destroy();
  }
}

const job = JSON.parse(process.argv[2] ?? '{}') as SyncMemoryJob;
fs.mkdirSync(job.work, { recursive: true });
main(job).then(
  (result) => process.send?.({ type: 'done', result }, () => process.exit(0)),
  (error: unknown) => {
    console.error(error);
    process.exit(1);
  },
);
