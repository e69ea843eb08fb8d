import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Readable } from 'node:stream';
import type { Adapter } from '../adapters/adapter';
import type { BlobStore, ByteRange } from '../blobs/blob-store';
import { FsBlobStore } from '../blobs/fs-blob-store';
import type { Db } from '../staging/database/create-db';
import { runSync, type SyncDeps, type SyncOptions, type SyncSummary } from './run-sync';

/** What a sync would do, had it run: the engine's own summary, and the files it would add, change and delete. */
export interface DryRun {
  summary: SyncSummary;
  added: string[];
  changed: string[];
  deleted: string[];
}

/**
 * The real blob store for reads (so content already stored counts as unchanged), a scratch folder
 * for the blobs the run would store (content-addressed, so the engine gets the keys it would get),
 * and no deletions.
 */
class DryRunBlobStore implements BlobStore {
  constructor(
    private readonly real: BlobStore,
    private readonly scratch: BlobStore,
  ) {}
  get where(): string {
    return this.real.where;
  }
  put(source: Readable | Buffer) {
    return this.scratch.put(source);
  }
  async stat(key: string) {
    return (await this.real.stat(key)) ?? this.scratch.stat(key);
  }
  createReadStream(key: string, range?: ByteRange): Readable {
    return this.real.createReadStream(key, range);
  }
  async delete(): Promise<void> {}
  list() {
    return this.real.list();
  }
  async removeLeftovers(): Promise<number> {
    return 0;
  }
}

type FileStates = Map<string, string>;

/** Each of the source's active files with what changes when the engine rewrites it (content, metadata, access). */
async function activeFiles(db: Db, source: string): Promise<FileStates> {
  const rows = (await db('files').where({ source, status: 'active' }).select('id', 'modified_at', 'content_hash', 'permissions_modified_at')) as Array<
    Record<string, unknown>
  >;
  return new Map(rows.map((r) => [String(r.id), JSON.stringify([r.modified_at, r.content_hash, r.permissions_modified_at])]));
}

/**
 * Runs the real sync (same engine, same stages, same guards) inside one transaction that is
 * always rolled back, with blobs going to a scratch folder that is removed: what it reports is
 * exactly what a sync would do, and staging and the blob store are left as they were. A second
 * engine that only computed differences would have to repeat every decision the stages make
 * (versions, hashes, policies, sweeps) and drift from them. The price: the source is read as a
 * real sync reads it (content that changed is downloaded, to the scratch folder), and the open
 * transaction holds what the writes hold until the dry run ends (SQLite's write lock; on Postgres,
 * the source's lock row).
 */
export async function dryRunSync(adapter: Adapter, deps: SyncDeps, options: Partial<SyncOptions>): Promise<DryRun> {
  const scratchDir = fs.mkdtempSync(path.join(os.tmpdir(), 'content-gateway-dry-run-'));
  const trx = await deps.db.transaction();
  try {
    const before = await activeFiles(trx, adapter.name);
    const blobs = new DryRunBlobStore(deps.blobs, new FsBlobStore(scratchDir));
    const summary = await runSync(adapter, { ...deps, db: trx, blobs }, options);
    const after = await activeFiles(trx, adapter.name);
    return {
      summary,
      added: [...after.keys()].filter((id) => !before.has(id)),
      changed: [...after].filter(([id, state]) => before.has(id) && before.get(id) !== state).map(([id]) => id),
      deleted: [...before.keys()].filter((id) => !after.has(id)),
    };
  } finally {
    await trx.rollback();
    fs.rmSync(scratchDir, { recursive: true, force: true });
  }
}
