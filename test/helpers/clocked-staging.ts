import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { Adapter } from '../../src/adapters/adapter';
import { FsBlobStore } from '../../src/blobs/fs-blob-store';
import type { Db } from '../../src/staging/database/create-db';
import { runAccessSync } from '../../src/sync/run-access-sync';
import { runSync, type SyncOptions } from '../../src/sync/run-sync';
import { createTestDatabase, type DatabaseKind, type TestDatabase } from './test-databases';

const logger = pino({ level: 'silent' });

/**
 * Real staging of `kind` and a blob folder, fresh for each test of the calling `describe`, and
 * the engine's runs into them on a clock that moves a minute on before each run.
 */
export function clockedStaging(
  kind: DatabaseKind,
  prefix: string,
): {
  readonly db: Db;
  sync: (source: Adapter, options?: Partial<SyncOptions>) => ReturnType<typeof runSync>;
  /** An access-only run (`sync --access-only`) on the same clock. */
  access: (source: Adapter, options?: Partial<SyncOptions>) => ReturnType<typeof runAccessSync>;
  /** The staged access list of file `src:<id>`, as `TYPE principal-id` lines in order. */
  permissions: (id: string) => Promise<string[]>;
} {
  let t: TestDatabase | undefined;
  let blobDir = '';
  let clock = 0;
  beforeEach(async () => {
    t = await createTestDatabase(kind);
    blobDir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
    clock = Date.parse('2026-05-01T00:00:00Z');
  });
  afterEach(async () => {
    await t?.destroy();
    fs.rmSync(blobDir, { recursive: true, force: true });
  });
  const db = (): Db => {
    if (!t) throw new Error('clockedStaging: used outside a test');
    return t.db;
  };
  return {
    get db() {
      return db();
    },
    sync: (source, options = {}) => {
      clock += 60_000;
      return runSync(source, { db: db(), blobs: new FsBlobStore(blobDir), logger, now: () => new Date(clock) }, options);
    },
    access: (source, options = {}) => {
      clock += 60_000;
      return runAccessSync(source, { db: db(), blobs: new FsBlobStore(blobDir), logger, now: () => new Date(clock) }, options);
    },
    permissions: async (id) =>
      (
        (await db()('file_permissions')
          .where({ file_id: `src:${id}` })
          .orderBy(['principal_type', 'principal_id'])
          .select('principal_type', 'principal_id')) as Array<{ principal_type: string; principal_id: string }>
      ).map((p) => `${p.principal_type} ${p.principal_id}`),
  };
}
