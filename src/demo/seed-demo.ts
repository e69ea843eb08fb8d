import crypto from 'node:crypto';
import fs from 'node:fs';
import type { BlobStore, StoredBlob } from '../blobs/blob-store';
import type { Db } from '../staging/create-db';
import { StagingWriter, type FileInput, type Principal } from '../staging/staging-writer';
import { DEMO_CORPUS_DIR, loadCorpus, type CorpusAccess } from './load-demo-corpus';

/** Ids are `<source>:<native id>`, like every adapter's. */
export const DEMO_SOURCE = 'demo';
const id = (nativeId: string): string => `${DEMO_SOURCE}:${nativeId}`;

export interface SeedSummary {
  files: number;
  users: number;
  groups: number;
}

function digestOf(bytes: Buffer): StoredBlob {
  const sha256 = crypto.createHash('sha256').update(bytes).digest('hex');
  return { key: sha256, size: bytes.length, sha256, sha1: crypto.createHash('sha1').update(bytes).digest('hex') };
}

function principals(access: CorpusAccess): Principal[] {
  if (access.public) return [{ type: 'GROUP', id: '*' }];
  return [...access.users.map((u) => ({ type: 'USER' as const, id: id(u) })), ...access.groups.map((g) => ({ type: 'GROUP' as const, id: id(g) }))];
}

/**
 * Loads the bundled demo corpus into staging so a first start serves a real gateway: HTML inline,
 * binaries into the blob store (before the rows that point at them), users, nested groups and
 * access lists. `now` is the staging time, which becomes every row's `last_modified_datetime`.
 */
export async function seedDemo(db: Db, blobs: BlobStore, now: Date = new Date(), root: string = DEMO_CORPUS_DIR): Promise<SeedSummary> {
  const corpus = await loadCorpus(root);
  const stamp = now.toISOString();
  const writer = new StagingWriter(db);

  await writer.putUsers(
    corpus.users.map((u) => ({
      id: id(u.nativeId),
      source: DEMO_SOURCE,
      native_id: u.nativeId,
      email: u.email,
      full_name: u.fullName,
      state: u.active ? 'Active' : 'Inactive',
      modified_at: stamp,
      metadata: null,
    })),
  );
  await writer.putGroups(
    corpus.groups.map((g) => ({
      group: { id: id(g.nativeId), source: DEMO_SOURCE, native_id: g.nativeId, name: g.name, created_at: stamp, modified_at: stamp, metadata: null },
      members: g.members.map((m) => ({ type: m.type, id: id(m.nativeId) })),
    })),
  );

  const files: Array<{ file: FileInput; permissions: Principal[] }> = [];
  for (const f of corpus.files) {
    const html = f.mimeType === 'text/html';
    const body = html ? await fs.promises.readFile(f.absolutePath) : undefined;
    // HTML is served inline from the row; only binaries go to the blob store.
    const stored = body ? digestOf(body) : await blobs.put(fs.createReadStream(f.absolutePath));
    const file: FileInput = {
      id: id(f.nativeId),
      source: DEMO_SOURCE,
      native_id: f.nativeId,
      name: f.name,
      external_url: `https://intranet.northwind.example/kb/${f.relativePath.split('/').map(encodeURIComponent).join('/')}`,
      mime_type: f.mimeType,
      status: 'active',
      size: stored.size,
      sha256: stored.sha256,
      sha1: stored.sha1,
      blob_key: body ? null : stored.key,
      body_html: body ? body.toString('utf8') : null,
      created_at: stamp,
      created_by: null,
      modified_at: stamp,
      modified_by: null,
      parent_id: id(f.folder.path || '/'),
      parent_name: f.folder.name,
      parent_path: `/${f.folder.path}`,
      custom_attributes: JSON.stringify({ source: 'demo corpus' }),
      content_hash: stored.sha256,
      permissions_modified_at: stamp,
    };
    files.push({ file, permissions: principals(f.access) });
  }
  await writer.putFiles(files);
  return { files: files.length, users: corpus.users.length, groups: corpus.groups.length };
}
