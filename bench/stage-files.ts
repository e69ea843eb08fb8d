import { fileWireJson } from '../src/staging/file-resource';
import type { Db } from '../src/staging/create-db';
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
/** 24 columns a row: 400 rows stay well under SQLite's bound-parameter limit. */
const CHUNK = 400;

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

/** Bulk-stages `count` files in one transaction of multi-row INSERTs (the fast path, no upsert). */
export async function stageFiles(db: Db, count: number, seed = 42): Promise<StagedFiles> {
  const started = performance.now();
  const random = seededRandom(seed);
  let html = 0;
  let binary = 0;
  let deleted = 0;
  await db.transaction(async (trx) => {
    for (let start = 0; start < count; start += CHUNK) {
      const rows: FileRow[] = [];
      for (let i = start; i < Math.min(start + CHUNK, count); i += 1) {
        const row = benchFile(i, random);
        if (row.blob_key) binary += 1;
        else html += 1;
        if (row.status === 'deleted') deleted += 1;
        // Writers store the list representation with the row (staging/file-resource.ts).
        rows.push({ ...row, wire_json: fileWireJson(row) });
      }
      await trx('files').insert(rows);
    }
  });
  // No ANALYZE: the sync engine never runs one, so the planner sees what a real deployment sees.
  return { count, html, binary, deleted, ms: performance.now() - started };
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
