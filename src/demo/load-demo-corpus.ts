/**
 * Reads a folder tree of documents with access sidecars into plain records (no database).
 *
 * The convention (documented for users in corpus/_README.md, and meant to become the
 * filesystem adapter's convention):
 * - `_directory.yaml` (or `.json`) at the root lists users and groups; groups list DIRECT members.
 * - `_access.yaml` (or `.json`) in a folder applies to it and its subfolders; a deeper sidecar
 *   REPLACES the inherited one. Its optional `files` map replaces the rule for files directly in
 *   that folder. No sidecar at or above a folder means no one has access.
 * - Names starting with `_` or `.` are never content.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';

export interface CorpusUser {
  nativeId: string;
  email: string;
  fullName: string;
  active: boolean;
}

export interface CorpusGroup {
  nativeId: string;
  name: string;
  members: Array<{ type: 'USER' | 'GROUP'; nativeId: string }>;
}

export type CorpusAccess = { public: true } | { public: false; users: string[]; groups: string[] };

export interface CorpusFile {
  /** Path relative to the root with '/' separators, NFC-normalised. */
  nativeId: string;
  /** Human title: the HTML <title> or first <h1>, else the file name without its extension. */
  name: string;
  /** Path relative to the root exactly as on disk, with '/' separators. */
  relativePath: string;
  absolutePath: string;
  mimeType: string;
  size: number;
  access: CorpusAccess;
  /** Parent folder; the root is `{ path: '', name: 'corpus root' }`. */
  folder: { path: string; name: string };
}

export interface Corpus {
  users: CorpusUser[];
  groups: CorpusGroup[];
  files: CorpusFile[];
  skipped: Array<{ relativePath: string; reason: string }>;
}

/** Thrown when the directory or a sidecar is malformed; the message names the file. */
export class CorpusError extends Error {
  override readonly name = 'CorpusError';
}

/**
 * Absolute path of the bundled corpus. Worked out from this module's own location rather than by
 * probing the disk for package.json, because importing a module must do no I/O: the source runs
 * as <pkg>/src/demo/*.ts (tsx, ts-jest) and the build as <pkg>/dist/src/demo/*.js.
 */
export const DEMO_CORPUS_DIR: string = path.join(
  path.resolve(__dirname, ...(path.extname(__filename) === '.js' ? ['..', '..', '..'] : ['..', '..'])),
  'src',
  'demo',
  'corpus',
);

const MIME_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html',
  '.htm': 'text/html',
  '.pdf': 'application/pdf',
  '.docx': 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  '.pptx': 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  '.txt': 'text/plain',
};

const DIRECTORY_NAMES = ['_directory.yaml', '_directory.json'] as const;
const SIDECAR_NAMES = ['_access.yaml', '_access.json'] as const;
const ROOT_FOLDER = { path: '', name: 'corpus root' } as const;

const idSchema = z.string().trim().min(1);

const directorySchema = z.strictObject({
  users: z
    .array(
      z.strictObject({
        id: idSchema,
        email: z.email(),
        full_name: z.string().min(1),
        active: z.boolean(),
      }),
    )
    .default([]),
  groups: z
    .array(
      z.strictObject({
        id: idSchema,
        name: z.string().min(1),
        members: z
          .array(z.union([z.strictObject({ user: idSchema }), z.strictObject({ group: idSchema })]))
          .default([]),
      }),
    )
    .default([]),
});

const ruleShape = {
  public: z.boolean().optional(),
  users: z.array(idSchema).optional(),
  groups: z.array(idSchema).optional(),
};

/** `public: true` next to named principals would be ambiguous, so it is refused outright. */
function isUnambiguous(rule: { public?: boolean; users?: string[]; groups?: string[] }): boolean {
  return !(rule.public === true && ((rule.users?.length ?? 0) > 0 || (rule.groups?.length ?? 0) > 0));
}
const ambiguity = { message: 'public: true cannot be combined with users or groups' };

const ruleSchema = z.strictObject(ruleShape).refine(isUnambiguous, ambiguity);

const sidecarSchema = z
  .strictObject({ ...ruleShape, files: z.record(z.string().min(1), ruleSchema).optional() })
  .refine(isUnambiguous, ambiguity);

type Rule = z.infer<typeof ruleSchema>;
type Sidecar = z.infer<typeof sidecarSchema>;

interface Directory {
  users: CorpusUser[];
  groups: CorpusGroup[];
}

interface Walk {
  root: string;
  directory: Directory;
  files: CorpusFile[];
  skipped: Corpus['skipped'];
}

/** Deny by default: a folder with no sidecar at or above it is visible to no one. */
const NO_ACCESS: CorpusAccess = { public: false, users: [], groups: [] };

export async function loadCorpus(root: string): Promise<Corpus> {
  const absoluteRoot = path.resolve(root);
  const directory = await readDirectory(absoluteRoot);
  const walk: Walk = { root: absoluteRoot, directory, files: [], skipped: [] };
  await walkFolder(walk, '', NO_ACCESS);
  return {
    users: directory.users,
    groups: directory.groups,
    files: walk.files.sort((a, b) => compare(a.nativeId, b.nativeId)),
    skipped: walk.skipped.sort((a, b) => compare(a.relativePath, b.relativePath)),
  };
}

async function walkFolder(walk: Walk, folderRel: string, inherited: CorpusAccess): Promise<void> {
  const folderAbs = path.join(walk.root, folderRel);
  const entries = (await fs.readdir(folderAbs)).sort(compare);
  const sidecar = await readSidecar(walk, folderRel, entries);
  const folderAccess = sidecar ? ruleToAccess(sidecar.rule) : inherited;
  const overrides = sidecar?.rule.files ?? {};

  const fileNames = new Set<string>();
  const subfolders: string[] = [];
  for (const entry of entries) {
    const rel = folderRel === '' ? entry : `${folderRel}/${entry}`;
    // lstat, never stat: a symlink could lead out of the root, so it is never followed.
    const stats = await fs.lstat(path.join(folderAbs, entry));
    if (stats.isSymbolicLink()) {
      walk.skipped.push({ relativePath: rel, reason: 'symbolic link (never followed)' });
    } else if (isControlFile(folderRel, entry)) {
      continue;
    } else if (entry.startsWith('_') || entry.startsWith('.')) {
      // Reported rather than silently dropped, so a misspelt sidecar (e.g. `_acess.yaml`) shows up.
      walk.skipped.push({ relativePath: rel, reason: 'reserved name (starts with "_" or ".")' });
    } else if (stats.isDirectory()) {
      subfolders.push(entry);
    } else if (!stats.isFile()) {
      walk.skipped.push({ relativePath: rel, reason: 'not a regular file' });
    } else {
      fileNames.add(entry.normalize('NFC'));
      const override = findOverride(overrides, entry);
      const access = override ? ruleToAccess(override) : folderAccess;
      await addFile(walk, folderRel, entry, stats.size, access);
    }
  }

  if (sidecar) {
    for (const name of Object.keys(overrides)) {
      // A misspelt override would silently leave the file with the folder's (often wider) access.
      if (!fileNames.has(name.normalize('NFC'))) {
        throw new CorpusError(`${sidecar.file}: "files" names "${name}", which is not a file in that folder`);
      }
    }
  }

  for (const sub of subfolders) {
    await walkFolder(walk, folderRel === '' ? sub : `${folderRel}/${sub}`, folderAccess);
  }
}

async function addFile(walk: Walk, folderRel: string, entry: string, size: number, access: CorpusAccess): Promise<void> {
  const relativePath = folderRel === '' ? entry : `${folderRel}/${entry}`;
  const ext = path.extname(entry).toLowerCase();
  const mimeType = MIME_TYPES[ext];
  if (!mimeType) {
    walk.skipped.push({ relativePath, reason: `unsupported extension "${ext || '(none)'}"` });
    return;
  }
  const absolutePath = path.join(walk.root, relativePath);
  const fallbackName = path.basename(entry, path.extname(entry)).normalize('NFC');
  const name =
    mimeType === 'text/html' ? (htmlTitle(await fs.readFile(absolutePath, 'utf8')) ?? fallbackName) : fallbackName;
  walk.files.push({
    nativeId: relativePath.normalize('NFC'),
    name,
    relativePath,
    absolutePath,
    mimeType,
    size,
    access,
    folder: folderRel === '' ? { ...ROOT_FOLDER } : { path: folderRel, name: path.posix.basename(folderRel) },
  });
}

function isControlFile(folderRel: string, entry: string): boolean {
  return (SIDECAR_NAMES as readonly string[]).includes(entry) ||
    (folderRel === '' && (DIRECTORY_NAMES as readonly string[]).includes(entry));
}

/** File names may reach us NFD-normalised (e.g. from macOS); the sidecar's keys may be either. */
function findOverride(overrides: Record<string, Rule>, entry: string): Rule | undefined {
  const wanted = entry.normalize('NFC');
  const key = Object.keys(overrides).find((k) => k.normalize('NFC') === wanted);
  return key === undefined ? undefined : overrides[key];
}

async function readSidecar(
  walk: Walk,
  folderRel: string,
  entries: readonly string[],
): Promise<{ file: string; rule: Sidecar } | undefined> {
  const present = SIDECAR_NAMES.filter((n) => entries.includes(n));
  if (present.length === 0) return undefined;
  const file = path.join(walk.root, folderRel, present[0] as string);
  if (present.length > 1) {
    throw new CorpusError(`${path.join(walk.root, folderRel)}: has both _access.yaml and _access.json; keep one`);
  }
  const rule = await readValidated(file, sidecarSchema);
  const check = (r: Rule): void => {
    for (const user of r.users ?? []) {
      if (!walk.directory.users.some((u) => u.nativeId === user)) {
        throw new CorpusError(`${file}: unknown user "${user}" (not in _directory)`);
      }
    }
    for (const group of r.groups ?? []) {
      if (!walk.directory.groups.some((g) => g.nativeId === group)) {
        throw new CorpusError(`${file}: unknown group "${group}" (not in _directory)`);
      }
    }
  };
  check(rule);
  Object.values(rule.files ?? {}).forEach(check);
  return { file, rule };
}

async function readDirectory(root: string): Promise<Directory> {
  const present: string[] = [];
  for (const name of DIRECTORY_NAMES) {
    if (await exists(path.join(root, name))) present.push(name);
  }
  if (present.length !== 1) {
    const problem = present.length === 0 ? 'is missing' : 'exists as both .yaml and .json; keep one';
    throw new CorpusError(`${path.join(root, '_directory.yaml')}: ${problem}`);
  }
  const file = path.join(root, present[0] as string);
  const raw = await readValidated(file, directorySchema);

  const users = raw.users.map((u) => ({ nativeId: u.id, email: u.email, fullName: u.full_name, active: u.active }));
  const userIds = uniqueIds(file, 'user', users);
  const groupIds = uniqueIds(file, 'group', raw.groups.map((g) => ({ nativeId: g.id })));
  // Cycles are allowed on purpose: a real directory can have them and the gateway must cope.
  const groups = raw.groups.map((g): CorpusGroup => {
    const members = g.members.map((m) => {
      const member = 'user' in m ? { type: 'USER' as const, nativeId: m.user } : { type: 'GROUP' as const, nativeId: m.group };
      const known = member.type === 'USER' ? userIds : groupIds;
      if (!known.has(member.nativeId)) {
        throw new CorpusError(`${file}: group "${g.id}" has unknown ${member.type.toLowerCase()} member "${member.nativeId}"`);
      }
      return member;
    });
    const seen = new Set(members.map((m) => `${m.type}:${m.nativeId}`));
    if (seen.size !== members.length) throw new CorpusError(`${file}: group "${g.id}" lists a member twice`);
    members.sort((a, b) => compare(a.type, b.type) || compare(a.nativeId, b.nativeId));
    return { nativeId: g.id, name: g.name, members };
  });

  return {
    users: users.sort((a, b) => compare(a.nativeId, b.nativeId)),
    groups: groups.sort((a, b) => compare(a.nativeId, b.nativeId)),
  };
}

async function readValidated<T extends z.ZodType>(file: string, schema: T): Promise<z.infer<T>> {
  // Same rule as for content: a control file that is a symlink could point anywhere, so refuse it.
  if (!(await fs.lstat(file)).isFile()) {
    throw new CorpusError(`${file}: must be a regular file (symbolic links are not followed)`);
  }
  const text = await fs.readFile(file, 'utf8');
  let data: unknown;
  try {
    data = file.endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw new CorpusError(`${file}: cannot parse: ${(err as Error).message}`);
  }
  const result = schema.safeParse(data);
  if (!result.success) {
    throw new CorpusError(`${file}: invalid content:\n${z.prettifyError(result.error)}`);
  }
  return result.data;
}

function uniqueIds(file: string, kind: string, records: ReadonlyArray<{ nativeId: string }>): Set<string> {
  const ids = new Set<string>();
  for (const { nativeId } of records) {
    if (ids.has(nativeId)) throw new CorpusError(`${file}: duplicate ${kind} id "${nativeId}"`);
    ids.add(nativeId);
  }
  return ids;
}

function ruleToAccess(rule: Rule): CorpusAccess {
  if (rule.public === true) return { public: true };
  return {
    public: false,
    users: [...new Set(rule.users ?? [])].sort(compare),
    groups: [...new Set(rule.groups ?? [])].sort(compare),
  };
}

/** The <title>, else the first <h1>, as plain text; undefined when neither has text. */
export function htmlTitle(html: string): string | undefined {
  for (const pattern of [/<title[^>]*>([\s\S]*?)<\/title>/i, /<h1[^>]*>([\s\S]*?)<\/h1>/i]) {
    const match = pattern.exec(html);
    const text = match?.[1] === undefined ? '' : decodeEntities(match[1].replace(/<[^>]*>/g, '')).replace(/\s+/g, ' ').trim();
    if (text) return text;
  }
  return undefined;
}

const NAMED_ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|[a-z]+);/gi, (whole, body: string) => {
    if (body[0] === '#') {
      const code = body[1] === 'x' || body[1] === 'X' ? parseInt(body.slice(2), 16) : parseInt(body.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return NAMED_ENTITIES[body.toLowerCase()] ?? whole;
  });
}

async function exists(file: string): Promise<boolean> {
  try {
    await fs.lstat(file);
    return true;
  } catch {
    return false;
  }
}

/** Code-unit order, not locale order, so the result is the same on every machine. */
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
