import Database from 'better-sqlite3';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { tinyPdf } from '../src/fixtures/mixed-tree';
import { seededRandom } from './seeded-random';

/**
 * The sources of the sync-memory benchmark, generated once into a cache folder under the OS temp
 * folder and reused by later runs (a million files take minutes to write): a folder tree for the
 * filesystem adapter and a SQLite database for the SQL adapter. A source is complete once its
 * `.complete` marker exists; an interrupted generation is started over.
 */

/** Bump when the generated content changes, so caches of the old shape are not reused. */
const SHAPE = 'v2';
/** Files a folder holds at most: real trees grow in folders, not in the size of one folder. */
export const FILES_PER_FOLDER = 500;
export const MEMORY_TREE_USERS = 20;

const WORDS = 'alpha beta gamma delta budget roadmap incident policy review release customer onboarding security audit quarter'.split(' ');

export function cacheDir(): string {
  return path.join(os.tmpdir(), 'gw-bench-sync-memory');
}

function cached(name: string, build: (target: string) => void | Promise<void>): Promise<{ path: string; generatedMs: number }> {
  const target = path.join(cacheDir(), name);
  const marker = `${target}.complete`;
  if (fs.existsSync(marker)) return Promise.resolve({ path: target, generatedMs: 0 });
  fs.rmSync(target, { recursive: true, force: true });
  fs.mkdirSync(path.dirname(target), { recursive: true });
  const t0 = performance.now();
  return Promise.resolve(build(target)).then(() => {
    fs.writeFileSync(marker, new Date().toISOString());
    return { path: target, generatedMs: performance.now() - t0 };
  });
}

/**
 * A tree of `files` files, `FILES_PER_FOLDER` to a folder in folders of 20 subfolders each (a
 * fan-out like a real share's): 60 % Markdown, 35 % HTML, 4 % text, 1 % PDF, of 200 to 900
 * bytes; a sidecar in every top folder, a directory of 20 users and 4 groups at the root.
 */
export function memoryTree(files: number): Promise<{ path: string; generatedMs: number }> {
  return cached(`tree-${SHAPE}-${files}`, (root) => {
    fs.mkdirSync(root, { recursive: true });
    const random = seededRandom(files);
    const users = Array.from({ length: MEMORY_TREE_USERS }, (_, i) => `u${i}`);
    const directory = [
      'users:',
      ...users.map((u) => `  - { id: ${u}, email: ${u}@corp.example, full_name: User ${u}, active: true }`),
      'groups:',
      ...[0, 1, 2, 3].map(
        (g) =>
          `  - { id: g${g}, name: Group ${g}, members: [${users
            .filter((_, i) => i % 4 === g)
            .map((u) => `{ user: ${u} }`)
            .join(', ')}] }`,
      ),
    ];
    fs.writeFileSync(path.join(root, '_directory.yaml'), `${directory.join('\n')}\n`);
    const pdf = tinyPdf('A small report');
    const folders = Math.ceil(files / FILES_PER_FOLDER);
    for (let f = 0; f < folders; f += 1) {
      const top = `t${String(Math.floor(f / 20)).padStart(4, '0')}`;
      const folder = path.join(root, top, `f${String(f % 20).padStart(2, '0')}`);
      fs.mkdirSync(folder, { recursive: true });
      if (f % 20 === 0) fs.writeFileSync(path.join(root, top, '_access.yaml'), f % 40 === 0 ? 'public: true\n' : `groups: [g${f % 4}]\nusers: [u${f % 20}]\n`);
      for (let i = f * FILES_PER_FOLDER; i < Math.min(files, (f + 1) * FILES_PER_FOLDER); i += 1) {
        const r = random();
        const words = Array.from({ length: 30 + Math.floor(random() * 100) }, () => WORDS[Math.floor(random() * WORDS.length)]).join(' ');
        const base = path.join(folder, `doc-${i}`);
        if (r < 0.6) fs.writeFileSync(`${base}.md`, `# Note ${i}\n\n${words}\n`);
        else if (r < 0.95) fs.writeFileSync(`${base}.html`, `<html><head><title>Page ${i}</title></head><body><p>${words}</p></body></html>\n`);
        else if (r < 0.99) fs.writeFileSync(`${base}.txt`, `${words}\n`);
        else fs.writeFileSync(`${base}.pdf`, pdf);
      }
    }
  });
}

/** A SQLite source of `documents` documents (~400 bytes of HTML each), 2,000 people, one or two access rows a document. */
export function memorySqlSource(documents: number): Promise<{ path: string; generatedMs: number }> {
  return cached(`sql-${SHAPE}-${documents}.db`, (file) => {
    const db = new Database(file);
    try {
      db.pragma('journal_mode = OFF');
      db.pragma('synchronous = OFF');
      db.exec(`
        CREATE TABLE people (id INTEGER PRIMARY KEY, email TEXT, department TEXT);
        CREATE TABLE documents (id INTEGER PRIMARY KEY, title TEXT, body TEXT, department TEXT, updated_at TEXT);
        CREATE TABLE document_access (document_id INTEGER, principal_type TEXT, principal_id TEXT);
      `);
      const person = db.prepare('INSERT INTO people VALUES (?, ?, ?)');
      const doc = db.prepare('INSERT INTO documents VALUES (?, ?, ?, ?, ?)');
      const access = db.prepare('INSERT INTO document_access VALUES (?, ?, ?)');
      const start = Date.parse('2026-04-01T00:00:00Z');
      db.transaction(() => {
        for (let i = 1; i <= 2000; i += 1) person.run(i, `user${i}@example.com`, `dept-${i % 20}`);
      })();
      const page = db.transaction((from: number, to: number) => {
        for (let i = from; i < to; i += 1) {
          doc.run(
            i,
            `Document ${i}`,
            `<p>Quarterly figures ${i}, decisions and the reasoning behind them.</p>`.repeat(6),
            `dept-${i % 20}`,
            new Date(start + i * 1000).toISOString(),
          );
          access.run(i, 'USER', String((i % 2000) + 1));
          if (i % 3 === 0) access.run(i, 'EVERYONE', null);
        }
      });
      for (let i = 1; i <= documents; i += 50_000) page(i, Math.min(documents + 1, i + 50_000));
      db.exec('CREATE INDEX document_access_document ON document_access (document_id)');
    } finally {
      db.close();
    }
  });
}

/** The mapping the SQL adapter reads the generated source with. */
export const MEMORY_SQL_MAPPING = {
  documents: {
    table: 'documents',
    id: 'id',
    title: 'title',
    body: 'body',
    urlTemplate: 'https://intranet.example.com/documents/{{id}}',
    modified: 'updated_at',
    attributes: { department: 'department' },
    access: { table: 'document_access', document: 'document_id', principal: 'principal_id', type: 'principal_type' },
  },
  users: { table: 'people', id: 'id', email: 'email' },
  incremental: { mode: 'modified' },
};
