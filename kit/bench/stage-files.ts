import type { Db } from 'content-gateway';
import { StagingWriter, type FileInput, type StagedFile } from '../../test/helpers/staging-writer';
import { seededRandom } from './seeded-random';

export interface StagedFiles {
  count: number;
  html: number;
  binary: number;
  deleted: number;
  ms: number;
  /** CPU time of this process meanwhile (SQLite's work included, Postgres's not): on a loaded machine, what wall time hides. */
  cpuMs: number;
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
  while (s.length < chars)
    s += Math.floor(random() * 0x100000000)
      .toString(16)
      .padStart(8, '0');
  return s.slice(0, chars);
}

/**
 * Row `i` of the bench corpus: ids in random order relative to insertion (as real sources give
 * them), modification times spread over a year, ~10 % binary rows, some parents and attributes,
 * ~1 % tombstones. Blob keys of the binary rows point nowhere: listing never opens a blob.
 */
function benchFile(i: number, random: () => number): FileInput {
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

/** Files a batch: what the sync engine hands the store at a time is smaller (500), a bulk load's batch is its own choice. */
const BATCH = 5000;

/**
 * Stages `count` files through the tests' bulk writer (`StagingWriter.loadFiles`, test/helpers/staging-writer.ts: one
 * transaction, the stored list JSON made by the writer, secondary indexes of the empty table
 * dropped and built once at the end), in batches of 5,000 generated as the load asks for them.
 * `ms` is the whole of it: generating the rows, writing them and building the indexes.
 */
export async function stageFiles(db: Db, count: number, seed = 42): Promise<StagedFiles> {
  const started = performance.now();
  const cpu = process.cpuUsage();
  const random = seededRandom(seed);
  const tally = { html: 0, binary: 0, deleted: 0 };
  function* batches(): Generator<StagedFile[]> {
    for (let start = 0; start < count; start += BATCH) {
      const batch: StagedFile[] = [];
      for (let i = start; i < Math.min(start + BATCH, count); i += 1) {
        const file = benchFile(i, random);
        if (file.blob_key) tally.binary += 1;
        else tally.html += 1;
        if (file.status === 'deleted') tally.deleted += 1;
        batch.push({ file, permissions: [] });
      }
      yield batch;
    }
  }
  await new StagingWriter(db).loadFiles(batches());
  // No ANALYZE: the sync engine never runs one, so the planner sees what a real deployment sees.
  const used = process.cpuUsage(cpu);
  return { count, ...tally, ms: performance.now() - started, cpuMs: (used.user + used.system) / 1000 };
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
