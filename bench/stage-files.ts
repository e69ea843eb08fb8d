import { fileWireJson } from '../src/wire/file-resource';
import { isPostgres, type Db } from '../src/staging/create-db';
import type { FileRow } from '../src/staging/row-types';
import { seededRandom } from './seeded-random';

export interface StagedFiles {
  count: number;
  html: number;
  binary: number;
  deleted: number;
  ms: number;
}

const SOURCE = 'bench';
const YEAR_MS = 365 * 24 * 3600 * 1000;
const T0 = Date.parse('2025-01-01T00:00:00.000Z');
const BINARY_TYPES = [
  'application/pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  'text/plain',
];

function hex(random: () => number, chars: number): string {
  let s = '';
  while (s.length < chars) s += Math.floor(random() * 0x100000000).toString(16).padStart(8, '0');
  return s.slice(0, chars);
}

/**
 * Row `i` of the bench corpus: ids in random order relative to insertion (as real sources give
 * them), modification times spread over a year, ~10 % binary rows, some parents and attributes,
 * ~1 % tombstones. Blob keys of the binary rows point nowhere: listing never opens a blob.
 */
function benchFile(i: number, random: () => number): FileRow {
  const nativeId = `${hex(random, 10)}-${i}`;
  const id = `${SOURCE}:${nativeId}`;
  const created = T0 + Math.floor(random() * YEAR_MS);
  const modified = Math.min(created + Math.floor(random() * YEAR_MS * 0.25), T0 + YEAR_MS);
  const binary = random() < 0.1;
  const deleted = random() < 0.01;
  const sha256 = binary ? hex(random, 64) : null;
  const withParent = random() < 0.5;
  const space = Math.floor(random() * 40);
  return {
    id,
    source: SOURCE,
    native_id: nativeId,
    name: binary ? `Report ${i}.pdf` : `Article ${i}: ${hex(random, 12)}`,
    external_url: `https://intranet.example/items/${encodeURIComponent(nativeId)}`,
    mime_type: binary ? (BINARY_TYPES[i % BINARY_TYPES.length] as string) : 'text/html',
    status: deleted ? 'deleted' : 'active',
    size: binary ? 10_000 + Math.floor(random() * 5_000_000) : null,
    sha256,
    sha1: binary ? hex(random, 40) : null,
    blob_key: sha256,
    body_html: binary ? null : `<h1>Article ${i}</h1>${`<p>Paragraph of article ${i}, ${hex(random, 16)}.</p>`.repeat(1 + (i % 8))}`,
    created_at: new Date(created).toISOString(),
    created_by: `author${i % 97}@example.com`,
    modified_at: new Date(modified).toISOString(),
    modified_by: `editor${i % 89}@example.com`,
    parent_id: withParent ? `${SOURCE}:space-${space}` : null,
    parent_name: withParent ? `Space ${space}` : null,
    parent_path: withParent ? `/spaces/space-${space}` : null,
    custom_attributes: random() < 0.3 ? JSON.stringify({ department: `dept-${i % 13}`, tags: `bench,t${i % 7}` }) : null,
    content_hash: hex(random, 64),
    permissions_modified_at: null,
    seen_run: 1,
    deleted_at: deleted ? new Date(modified).toISOString() : null,
  };
}

/** The staged columns, in insert order, with their Postgres types for `unnest`. */
const COLUMNS: ReadonlyArray<readonly [keyof FileRow, string]> = [
  ['id', 'text'], ['source', 'text'], ['native_id', 'text'], ['name', 'text'], ['external_url', 'text'], ['mime_type', 'text'],
  ['status', 'text'], ['size', 'bigint'], ['sha256', 'text'], ['sha1', 'text'], ['blob_key', 'text'], ['body_html', 'text'],
  ['created_at', 'text'], ['created_by', 'text'], ['modified_at', 'text'], ['modified_by', 'text'], ['parent_id', 'text'],
  ['parent_name', 'text'], ['parent_path', 'text'], ['custom_attributes', 'text'], ['content_hash', 'text'],
  ['permissions_modified_at', 'text'], ['seen_run', 'integer'], ['deleted_at', 'text'], ['wire_json', 'text'],
];
/** Rows per statement on Postgres: one array parameter per column, so the bound-parameter limit never binds. */
const PG_BATCH = 5000;

interface RawSqlite {
  pragma(source: string): unknown;
  prepare(sql: string): { run(...values: unknown[]): unknown };
  transaction(fn: () => void): () => void;
}

interface RawPg {
  query(text: string, values?: unknown[]): Promise<unknown>;
}

/**
 * Postgres: each batch is one `INSERT … SELECT * FROM unnest($1::text[], …)`, 25 parameters
 * whatever the batch size, on the driver itself (knex would expand the arrays into lists).
 */
async function insertPostgres(db: Db, rows: Iterable<FileRow[]>): Promise<void> {
  const sql = `insert into files (${COLUMNS.map(([c]) => `"${c}"`).join(', ')}) select * from unnest(${COLUMNS.map(([, type], i) => `$${i + 1}::${type}[]`).join(', ')})`;
  const client = db.client as { acquireConnection(): Promise<RawPg>; releaseConnection(c: RawPg): Promise<void> };
  const conn = await client.acquireConnection();
  try {
    await conn.query('begin');
    for (const batch of rows) await conn.query(sql, COLUMNS.map(([c]) => batch.map((r) => r[c] ?? null)));
    await conn.query('commit');
  } catch (error) {
    await conn.query('rollback').catch(() => undefined);
    throw error;
  } finally {
    await client.releaseConnection(conn);
  }
}

/** SQLite: one prepared single-row INSERT run for every row inside one transaction, on the driver itself. */
async function insertSqlite(db: Db, rows: Iterable<FileRow[]>): Promise<void> {
  const client = db.client as { acquireConnection(): Promise<RawSqlite>; releaseConnection(c: RawSqlite): Promise<void> };
  const conn = await client.acquireConnection();
  conn.pragma(`cache_size = -${SQLITE_LOAD_CACHE_KIB}`);
  try {
    const insert = conn.prepare(`insert into files (${COLUMNS.map(([c]) => `"${c}"`).join(', ')}) values (${COLUMNS.map(() => '?').join(', ')})`);
    conn.transaction(() => {
      for (const batch of rows) for (const row of batch) insert.run(...COLUMNS.map(([c]) => row[c] ?? null));
    })();
  } finally {
    await client.releaseConnection(conn);
  }
}

/** Page cache of the SQLite loading connection while it stages (KiB, negative per SQLite): random-order keys touch every index page. */
const SQLITE_LOAD_CACHE_KIB = 512 * 1024;

/**
 * The files table's secondary indexes (not those behind the primary key or a unique constraint),
 * as statements that create them again: a bulk load drops them first and builds each once at the
 * end, a sort instead of a million random b-tree inserts into indexes that hold the list JSON.
 */
async function secondaryIndexes(db: Db): Promise<Array<{ name: string; create: string }>> {
  if (isPostgres(db)) {
    const result = (await db.raw(
      `select indexname as name, indexdef as "create" from pg_indexes where schemaname = current_schema() and tablename = 'files'
         and indexname not in (select conname from pg_constraint where connamespace = current_schema()::regnamespace)`,
    )) as { rows: Array<{ name: string; create: string }> };
    return result.rows;
  }
  return (await db.raw(`select name, sql as "create" from sqlite_master where type = 'index' and tbl_name = 'files' and sql is not null`)) as Array<{ name: string; create: string }>;
}

/**
 * Bulk-stages `count` files the fastest plain way each database offers (no upsert, no COPY):
 * secondary indexes dropped and rebuilt after, then Postgres in batches of 5,000 rows through
 * `unnest` arrays, SQLite through one prepared statement in one transaction with a large page
 * cache. The time (rows and index builds) is what `ms` reports.
 */
export async function stageFiles(db: Db, count: number, seed = 42): Promise<StagedFiles> {
  const started = performance.now();
  const random = seededRandom(seed);
  const tally = { html: 0, binary: 0, deleted: 0 };
  const batchSize = isPostgres(db) ? PG_BATCH : 1000;
  function* batches(): Generator<FileRow[]> {
    for (let start = 0; start < count; start += batchSize) {
      const rows: FileRow[] = [];
      for (let i = start; i < Math.min(start + batchSize, count); i += 1) {
        const row = benchFile(i, random);
        if (row.blob_key) tally.binary += 1;
        else tally.html += 1;
        if (row.status === 'deleted') tally.deleted += 1;
        // Writers store the list representation with the row (wire/file-resource.ts).
        rows.push({ ...row, wire_json: fileWireJson(row) });
      }
      yield rows;
    }
  }
  const indexes = await secondaryIndexes(db);
  for (const index of indexes) await db.raw(`drop index "${index.name}"`);
  if (isPostgres(db)) await insertPostgres(db, batches());
  else await insertSqlite(db, batches());
  for (const index of indexes) await db.raw(index.create);
  // No ANALYZE: the sync engine never runs one, so the planner sees what a real deployment sees.
  return { count, ...tally, ms: performance.now() - started };
}

/** One public PDF row pointing at a stored blob: the file the download benches fetch. */
export function publicPdfRow(id: string, name: string, stored: { key: string; size: number; sha256: string; sha1: string }, modified: string) {
  const slug = id.replace(/^bench:/, '');
  return {
    file: {
      id,
      source: SOURCE,
      native_id: slug,
      name,
      external_url: `https://intranet.example/${slug}`,
      mime_type: 'application/pdf',
      status: 'active' as const,
      size: stored.size,
      sha256: stored.sha256,
      sha1: stored.sha1,
      blob_key: stored.key,
      body_html: null,
      created_at: modified,
      created_by: 'author@example.com',
      modified_at: modified,
      modified_by: 'editor@example.com',
      parent_id: null,
      parent_name: null,
      parent_path: null,
      custom_attributes: null,
    },
    permissions: [{ type: 'GROUP' as const, id: '*' }],
  };
}
