import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { createFilesystemAdapter } from 'content-gateway';
import { DbBlobStore } from 'content-gateway';
import { FsBlobStore } from 'content-gateway';
import { createDb, type Db } from 'content-gateway';
import { migrateLatest } from 'content-gateway';
import { runSync, type SyncSummary } from 'content-gateway';
import { generateMixedTree } from '../src/fixtures/mixed-tree';
import { loadNote } from './load-note';
import { measurement, type BenchmarkResult } from './report';

export interface SyncThroughputOptions {
  files: number;
  /**
   * Alternating sync / baseline rounds; the best of each counts (noise only ever slows). The first
   * sync runs cold (JIT, the adapter's worker thread starting); later ones reach steady state.
   */
  rounds: number;
  /** Rows per baseline transaction: the engine's default batch (SYNC_BATCH_SIZE). */
  batchSize: number;
}

const DEFAULTS: SyncThroughputOptions = { files: 10_000, rounds: 5, batchSize: 500 };
const SOURCE = 'bench-fs';

type Row = Record<string, unknown>;

/**
 * What creating a small file costs on this disk right now (median of `count`, in a folder of the
 * bench's own, deleted only at the end). Blob writes are file creations, and on ext4 without a
 * journal a creation scans past inodes freed in the last minutes: right after a test suite or
 * another bench deleted thousands of files it can cost 20 times what it costs on a quiet disk.
 */
let probes = 0;
function fileCreateMicros(dir: string, count = 300): number {
  const bytes = Buffer.alloc(3000, 1);
  const times: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const t0 = performance.now();
    fs.writeFileSync(path.join(dir, `probe-${(probes += 1)}`), bytes, { flag: 'wx' });
    times.push((performance.now() - t0) * 1000);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(count / 2)] ?? 0;
}

/**
 * At this cost of a creation or more, the disk is still busy with what was deleted before (a
 * quiet one: 20 to 30 µs). Measured: the same sync took 0.60 s at 22 µs and 1.07 to 1.41 s at
 * 60 to 77 µs.
 */
const BUSY_DISK_MICROS = 40;

/**
 * Waits until creating a file costs less than `BUSY_DISK_MICROS`, or `deadline` (a
 * `performance.now()` time) passes: a slow spell of the disk, after another benchmark or a test
 * run deleted many files, can outlast every round, and best-of-rounds then measures the disk
 * rather than the sync. The wait and the cost are reported with the round.
 */
async function quietDisk(dir: string, deadline: number): Promise<{ waitedMs: number; micros: number }> {
  const t0 = performance.now();
  let micros = fileCreateMicros(dir, 50);
  while (micros >= BUSY_DISK_MICROS && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 2000));
    micros = fileCreateMicros(dir, 50);
  }
  return { waitedMs: performance.now() - t0, micros };
}

/** How long the adapter alone takes, on one thread, to walk the tree and yield every event (reads included). */
async function adapterAlone(root: string): Promise<{ ms: number; events: number }> {
  const adapter = createFilesystemAdapter({ root, sourceName: SOURCE, workerThread: false });
  const t0 = performance.now();
  let events = 0;
  for await (const _event of adapter.full({ logger: pino({ level: 'silent' }), signal: new AbortController().signal, now: () => new Date() })) events += 1;
  return { ms: performance.now() - t0, events };
}

/** One more full sync of `root` into a fresh SQLite database, set up otherwise than the measured ones (ms). */
async function syncVariant(work: string, root: string, files: number, variant: { blobs: 'database' | 'directory'; workerThread: boolean }): Promise<number> {
  const dir = fs.mkdtempSync(path.join(work, 'variant-'));
  const { db } = await freshDb(dir);
  try {
    const blobs = variant.blobs === 'database' ? new DbBlobStore(db) : new FsBlobStore(path.join(dir, 'blobs'));
    const t0 = performance.now();
    const summary = await runSync(
      createFilesystemAdapter({ root, sourceName: SOURCE, workerThread: variant.workerThread }),
      { db, blobs, logger: pino({ level: 'silent' }) },
      { mode: 'full' },
    );
    const ms = performance.now() - t0;
    if (summary.status !== 'succeeded' || summary.counts.added !== files || summary.identities.added !== 45)
      throw new Error(`the sync did not stage everything: ${JSON.stringify(summary)}`);
    return ms;
  } finally {
    await db.destroy();
  }
}

/** A fresh, migrated SQLite database (the gateway's own pragmas) in `dir`. */
async function freshDb(dir: string): Promise<{ db: Db; file: string }> {
  const file = path.join(dir, 'staging.sqlite');
  const db = createDb({ sqlitePath: file });
  await migrateLatest(db);
  return { db, file };
}

/**
 * The ceiling: the same file and access rows the sync staged, inserted straight through
 * better-sqlite3 (prepared INSERTs, `batchSize` rows a transaction, the same schema, indexes and
 * pragmas) into a fresh database. No source reads, no hashing, no blobs, no change detection.
 */
function rawInsert(file: string, files: Row[], permissions: Row[], batchSize: number): number {
  const conn = new Database(file);
  conn.pragma('journal_mode = WAL');
  conn.pragma('synchronous = NORMAL');
  conn.pragma('foreign_keys = ON');
  try {
    const columns = Object.keys(files[0] ?? {});
    const insertFile = conn.prepare(`INSERT INTO files (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`);
    const insertPermission = conn.prepare('INSERT INTO file_permissions (file_id, principal_type, principal_id, action, served_id) VALUES (?, ?, ?, ?, ?)');
    const byFile = new Map<unknown, Row[]>();
    for (const p of permissions) byFile.set(p.file_id, [...(byFile.get(p.file_id) ?? []), p]);
    const batch = conn.transaction((rows: Row[]) => {
      for (const row of rows) {
        insertFile.run(columns.map((c) => row[c]));
        for (const p of byFile.get(row.id) ?? []) insertPermission.run(p.file_id, p.principal_type, p.principal_id, p.action, p.served_id);
      }
    });
    const t0 = performance.now();
    for (let i = 0; i < files.length; i += batchSize) batch(files.slice(i, i + batchSize));
    return performance.now() - t0;
  } finally {
    conn.close();
  }
}

/**
 * Files per second of a full filesystem sync (in-process `runSync`, the real adapter and engine)
 * of a generated 10,000-file folder into a fresh SQLite database and blob folder, against the
 * rate at which the same rows go into a fresh database through bare prepared INSERTs.
 */
export async function syncThroughput(options: Partial<SyncThroughputOptions> = {}): Promise<BenchmarkResult> {
  const o = { ...DEFAULTS, ...options };
  const started = performance.now();
  const loadBefore = os.loadavg()[0] ?? 0;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-sync-'));
  try {
    const root = path.join(work, 'tree');
    fs.mkdirSync(root);
    const t0 = performance.now();
    const tree = generateMixedTree(root, { files: o.files });
    const generatedMs = performance.now() - t0;
    const kinds = new Map<string, number>();
    for (const f of tree.files) kinds.set(f.kind, (kinds.get(f.kind) ?? 0) + 1);

    const probeDir = path.join(work, 'probe');
    fs.mkdirSync(probeDir);
    const createUs = fileCreateMicros(probeDir);
    const notes: string[] = [
      `creating a 3 KB file on this disk takes ${createUs.toFixed(0)} µs now (median of 300; a quiet ext4 disk: ~30 µs); the sync creates one file per binary blob`,
      `${tree.files.length} files generated in ${(generatedMs / 1000).toFixed(1)} s (${[...kinds].map(([k, n]) => `${n} ${k}`).join(', ')}; ${tree.skipped.length} skipped files; ${tree.folders.size} folders), 30 users, 15 groups`,
    ];
    let bestSync = Number.POSITIVE_INFINITY;
    let bestRaw = Number.POSITIVE_INFINITY;
    let rows = { files: 0, permissions: 0, bytes: 0 };
    // Rounds wait for a quiet disk, three minutes at most in all.
    const waitUntil = performance.now() + 180_000;
    for (let round = 1; round <= o.rounds; round += 1) {
      const disk = await quietDisk(probeDir, waitUntil);
      const dir = fs.mkdtempSync(path.join(work, 'sync-'));
      const { db } = await freshDb(dir);
      let summary: SyncSummary;
      let files: Row[];
      let permissions: Row[];
      let syncMs: number;
      const blobs = new FsBlobStore(path.join(dir, 'blobs'));
      let stored = 0;
      try {
        const adapter = createFilesystemAdapter({ root, sourceName: SOURCE });
        const s0 = performance.now();
        summary = await runSync(adapter, { db, blobs, logger: pino({ level: 'silent' }) }, { mode: 'full' });
        syncMs = performance.now() - s0;
        if (summary.status !== 'succeeded' || summary.counts.added !== o.files || summary.identities.added !== 45)
          throw new Error(`the sync did not stage everything: ${JSON.stringify(summary)}`);
        files = (await db('files').orderBy('id').select('*')) as Row[];
        for await (const _blob of blobs.list()) stored += 1;
        permissions = (await db('file_permissions').select('*')) as Row[];
      } finally {
        await db.destroy();
      }
      rows = { files: files.length, permissions: permissions.length, bytes: files.reduce((n, r) => n + JSON.stringify(r).length, 0) };

      const rawDir = fs.mkdtempSync(path.join(work, 'raw-'));
      const raw = await freshDb(rawDir);
      await raw.db.destroy();
      const rawMs = rawInsert(raw.file, files, permissions, o.batchSize);
      notes.push(
        `round ${round}: sync ${(syncMs / 1000).toFixed(2)} s = ${((o.files * 1000) / syncMs).toFixed(0)} files/s (${summary.counts.added} files and ${summary.identities.added} users and groups added; ` +
          `${stored} blobs stored); ` +
          `raw inserts ${rawMs.toFixed(0)} ms = ${((o.files * 1000) / rawMs).toFixed(0)} files/s; ` +
          `a file creation cost ${disk.micros.toFixed(0)} µs before the round${disk.waitedMs >= 1000 ? ` (after waiting ${(disk.waitedMs / 1000).toFixed(0)} s for the disk to quieten)` : ''}`,
      );
      bestSync = Math.min(bestSync, syncMs);
      bestRaw = Math.min(bestRaw, rawMs);
      // The round's folders stay until the end: on ext4 without a journal, creating a file scans
      // past inodes deleted in the last minutes, so deleting 1,500 blobs here would slow the next
      // round's blob writes several-fold (measured: 600 µs a create instead of 30).
    }
    const inDatabase = await syncVariant(work, root, o.files, { blobs: 'database', workerThread: true });
    const oneThread = await syncVariant(work, root, o.files, { blobs: 'directory', workerThread: false });
    const alone = await adapterAlone(root);
    const ratio = (ms: number) => (bestRaw / ms).toFixed(2);
    notes.push(
      `the same sync with BLOB_STORE=database (binary content as chunk rows in the same SQLite database, no file per blob): ${(inDatabase / 1000).toFixed(2)} s = ` +
        `${((o.files * 1000) / inDatabase).toFixed(0)} files/s, ${ratio(inDatabase)} of the baseline`,
      `the same sync with the adapter on the sync thread (FILESYSTEM_WORKER_THREAD=false): ${(oneThread / 1000).toFixed(2)} s, ${ratio(oneThread)} of the baseline`,
      `the adapter alone, on one thread (walk, sidecars, reading every file, Markdown; no engine, no database), yields its ${alone.events} events in ${(alone.ms / 1000).toFixed(2)} s, ` +
        `${((alone.ms / bestSync) * 100).toFixed(0)} % of the best sync's time; in the sync it runs on a worker thread, beside the engine's decisions, blob writes and database batches`,
      `baseline: the ${rows.files} file rows (${(rows.bytes / rows.files / 1024).toFixed(1)} KiB each as JSON) and ${rows.permissions} access rows the sync staged, ` +
        `re-inserted with prepared INSERTs through better-sqlite3, ${o.batchSize} files a transaction, into a fresh migrated database (same indexes, WAL, synchronous=NORMAL)`,
      'the sync also reads and hashes every file, renders Markdown, writes binaries to the content-addressed blob folder, looks up existing rows, records seen marks and sweeps; users and groups are not in the baseline',
      loadNote(loadBefore),
    );
    return {
      name: 'sync-throughput',
      durationMs: performance.now() - started,
      measurements: [
        measurement({
          benchmark: 'sync-throughput',
          metric: `full filesystem sync, ${o.files} files, fresh SQLite`,
          unit: 'files/s',
          value: (o.files * 1000) / bestSync,
          baseline: (o.files * 1000) / bestRaw,
          goal: { on: 'ratio', op: '>=', target: 0.33 }, // a third of the ceiling
        }),
      ],
      notes,
    };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
