/**
 * Pure mapping of the filesystem convention: paths to native ids, file types, Markdown to HTML,
 * titles, the access sidecars and the directory file. No I/O here; the tree walk and the adapter
 * feed these functions what they read.
 *
 * The convention (for users: src/demo/corpus/_README.md):
 * - A directory file (default `_directory.yaml` or `.json` at the root) lists users and groups;
 *   groups list DIRECT members.
 * - `_access.yaml` (or `.json`) in a folder applies to it and its subfolders; a deeper sidecar
 *   REPLACES the inherited one. Its optional `files` map replaces the rule for files directly in
 *   that folder. No sidecar at or above a folder means no one has access.
 * - Names starting with `_` or `.` are never content.
 */
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import MarkdownIt from 'markdown-it';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { EVERYONE, type AccessEntry, type GroupRecord, type Principal, type SupportedMimeType, type UserRecord } from '../adapter';
import { escapeHtml } from '../../lib/escape-html';
import { SourceError } from '../source-error';

/** A sidecar (or the rule it gives a file) cannot be used: the files it governs fail, the run goes on. */
export class AccessRuleError extends SourceError {
  override readonly action = 'skip-item';
}

/**
 * A sidecar that could not be read (an I/O error): transient, so an access-only run fails rather
 * than narrow the files it governs (a content run narrows them to nobody, as for any broken rule).
 */
export class SidecarUnreadableError extends AccessRuleError {}

/** The directory file is missing or malformed: the whole run stops, naming the file. */
export class DirectoryFileError extends SourceError {}

// ---------------------------------------------------------------------------------------------
// Paths and ids

/** Code-unit order, not locale order, so every machine walks the tree the same way. */
export function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `_access.yaml`, `_directory.yaml`, `.git`, `_drafts/`...: never content. */
export function isReservedName(name: string): boolean {
  return name.startsWith('_') || name.startsWith('.');
}

export const SIDECAR_NAMES = ['_access.yaml', '_access.json'] as const;
export const DIRECTORY_NAMES = ['_directory.yaml', '_directory.json'] as const;

/**
 * Checks a relative path with `/` separators: no empty, `.` or `..` segment, not absolute, no
 * NUL. Returns it, or throws (a `..` anywhere is refused, never resolved). A drive prefix (`C:`)
 * is refused on Windows only: elsewhere `C:notes.md` is an ordinary name.
 */
export function checkRelativePath(relativePath: string, platform: NodeJS.Platform = process.platform): string {
  const drivePrefix = platform === 'win32' && /^[A-Za-z]:/.test(relativePath);
  if (relativePath === '' || relativePath.startsWith('/') || relativePath.includes('\0') || drivePrefix) {
    throw new Error(`"${relativePath}" is not a relative path inside the root`);
  }
  for (const segment of relativePath.split('/')) {
    if (segment === '' || segment === '.' || segment === '..') throw new Error(`"${relativePath}" is not a relative path inside the root`);
  }
  return relativePath;
}

/** The native id of a file: its path relative to the root, `/`-separated, NFC-normalised. */
export function toNativeId(relativePath: string): string {
  return checkRelativePath(relativePath).normalize('NFC');
}

/** Joins a folder's relative path ('' for the root) and a name. */
export function joinRelative(folder: string, name: string): string {
  return folder === '' ? name : `${folder}/${name}`;
}

/** Whether `candidate` (absolute, realpath-resolved) is `root` or inside it. */
export function isInsideRoot(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  // `..foo` is a name inside the root; `..` or `../x` is outside.
  return !path.isAbsolute(relative) && relative !== '..' && !relative.startsWith(`..${path.sep}`);
}

/** The version of a file's bytes as the source sees them: cheap, and changes when they do. */
export function fileVersion(stats: { mtimeMs: number; size: number }): string {
  return `${stats.mtimeMs}:${stats.size}`;
}

/** Where a user opens the file: under the base URL when there is one, else its file:// URL. */
export function externalUrlOf(baseUrl: string | undefined, nativeId: string, absolutePath: string): string {
  if (baseUrl === undefined) return pathToFileURL(absolutePath).href;
  return `${baseUrl}/${nativeId.split('/').map(encodeURIComponent).join('/')}`;
}

// ---------------------------------------------------------------------------------------------
// File types and content

export type FileKind = 'html' | 'markdown' | 'binary';

const FILE_TYPES: Readonly<Record<string, { mimeType: SupportedMimeType; kind: FileKind }>> = {
  '.html': { mimeType: 'text/html', kind: 'html' },
  '.htm': { mimeType: 'text/html', kind: 'html' },
  '.md': { mimeType: 'text/html', kind: 'markdown' },
  '.pdf': { mimeType: 'application/pdf', kind: 'binary' },
  '.docx': { mimeType: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document', kind: 'binary' },
  '.pptx': { mimeType: 'application/vnd.openxmlformats-officedocument.presentationml.presentation', kind: 'binary' },
  '.txt': { mimeType: 'text/plain', kind: 'binary' },
};

/** The lower-case extension with its dot, or `(none)`: how skipped files are counted. */
export function extensionOf(fileName: string): string {
  return path.extname(fileName).toLowerCase() || '(none)';
}

/** The served MIME type and how the content is read, or undefined for an unsupported file. */
export function fileTypeOf(fileName: string): { mimeType: SupportedMimeType; kind: FileKind } | undefined {
  return FILE_TYPES[path.extname(fileName).toLowerCase()];
}

/** The file name without its extension: the title of anything without a better one. */
export function baseTitle(fileName: string): string {
  return path.basename(fileName, path.extname(fileName)).normalize('NFC');
}

// Raw HTML in Markdown is escaped (`html: false`): a .md file must never inject markup or script.
const markdown = new MarkdownIt({ html: false, linkify: true });

/** Renders Markdown into a complete HTML document titled by its first heading, else `fallbackTitle`. */
export function renderMarkdown(source: string, fallbackTitle: string): string {
  const body = markdown.render(source);
  const title = htmlTitle(body) ?? fallbackTitle;
  return `<!DOCTYPE html>\n<html>\n<head>\n<meta charset="utf-8">\n<title>${escapeHtml(title)}</title>\n</head>\n<body>\n${body}</body>\n</html>\n`;
}

/** The <title>, else the first <h1>, as plain text; undefined when neither has text. */
export function htmlTitle(html: string): string | undefined {
  for (const pattern of [/<title[^>]*>([\s\S]*?)<\/title>/i, /<h1[^>]*>([\s\S]*?)<\/h1>/i]) {
    const match = pattern.exec(html);
    const text =
      match?.[1] === undefined
        ? ''
        : decodeEntities(match[1].replace(/<[^>]*>/g, ''))
            .replace(/\s+/g, ' ')
            .trim();
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

/** Text as read from disk, without a UTF-8 byte-order mark. */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

// ---------------------------------------------------------------------------------------------
// Control files: parsing

function parseControlFile(text: string, file: string, fail: (message: string) => Error): unknown {
  try {
    return file.toLowerCase().endsWith('.json') ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    throw fail(`${file}: cannot parse: ${(err as Error).message}`);
  }
}

function validated<T extends z.ZodType>(data: unknown, schema: T, file: string, fail: (message: string) => Error): z.infer<T> {
  const result = schema.safeParse(data);
  if (!result.success) throw fail(`${file}: invalid content:\n${z.prettifyError(result.error)}`);
  return result.data;
}

const idSchema = z.string().trim().min(1);

const directorySchema = z.strictObject({
  users: z.array(z.strictObject({ id: idSchema, email: z.email(), full_name: z.string().min(1), active: z.boolean() })).default([]),
  groups: z
    .array(
      z.strictObject({
        id: idSchema,
        name: z.string().min(1),
        members: z.array(z.union([z.strictObject({ user: idSchema }), z.strictObject({ group: idSchema })])).default([]),
      }),
    )
    .default([]),
});

export interface Directory {
  users: UserRecord[];
  groups: GroupRecord[];
  userIds: ReadonlySet<string>;
  groupIds: ReadonlySet<string>;
}

/**
 * Parses the directory file (YAML, or JSON by extension). Throws DirectoryFileError naming `file`
 * when it does not parse, has unknown keys, duplicate ids or members that are not in it.
 */
export function parseDirectory(text: string, file: string): Directory {
  const fail = (message: string) => new DirectoryFileError(message);
  const raw = validated(parseControlFile(text, file, fail), directorySchema, file, fail);
  const uniqueIds = (kind: string, ids: string[]): Set<string> => {
    const seen = new Set<string>();
    for (const id of ids) {
      if (seen.has(id)) throw fail(`${file}: duplicate ${kind} id "${id}"`);
      seen.add(id);
    }
    return seen;
  };
  const userIds = uniqueIds(
    'user',
    raw.users.map((u) => u.id),
  );
  const groupIds = uniqueIds(
    'group',
    raw.groups.map((g) => g.id),
  );
  // Cycles are allowed on purpose: a real directory can have them and the gateway must cope.
  const groups = raw.groups.map((g): GroupRecord => {
    const members: Principal[] = g.members.map((m) => ('user' in m ? { type: 'USER', nativeId: m.user } : { type: 'GROUP', nativeId: m.group }));
    for (const member of members) {
      if (!(member.type === 'USER' ? userIds : groupIds).has(member.nativeId)) {
        throw fail(`${file}: group "${g.id}" has unknown ${member.type.toLowerCase()} member "${member.nativeId}"`);
      }
    }
    if (new Set(members.map((m) => `${m.type}:${m.nativeId}`)).size !== members.length) throw fail(`${file}: group "${g.id}" lists a member twice`);
    members.sort((a, b) => compareCodeUnits(a.type, b.type) || compareCodeUnits(a.nativeId, b.nativeId));
    return { nativeId: g.id, name: g.name, members };
  });
  return {
    users: raw.users
      .map((u): UserRecord => ({ nativeId: u.id, email: u.email, fullName: u.full_name, active: u.active }))
      .sort((a, b) => compareCodeUnits(a.nativeId, b.nativeId)),
    groups: groups.sort((a, b) => compareCodeUnits(a.nativeId, b.nativeId)),
    userIds,
    groupIds,
  };
}

const ruleShape = { public: z.boolean().optional(), users: z.array(idSchema).optional(), groups: z.array(idSchema).optional() };

/** `public: true` next to named principals would be ambiguous, so it is refused outright. */
const isUnambiguous = (rule: { public?: boolean; users?: string[]; groups?: string[] }): boolean =>
  !(rule.public === true && ((rule.users?.length ?? 0) > 0 || (rule.groups?.length ?? 0) > 0));
const ambiguity = { message: 'public: true cannot be combined with users or groups' };

const ruleSchema = z.strictObject(ruleShape).refine(isUnambiguous, ambiguity);

const sidecarSchema = z.strictObject({ ...ruleShape, files: z.record(z.string().min(1), ruleSchema).optional() }).refine(isUnambiguous, ambiguity);

export type AccessRule = z.infer<typeof ruleSchema>;

export interface Sidecar {
  rule: AccessRule;
  /** Per-file rules for files directly in the sidecar's folder, keyed by NFC name. */
  overrides: ReadonlyMap<string, AccessRule>;
}

/** Parses an access sidecar; throws AccessRuleError naming `file` when it is unusable. */
export function parseSidecar(text: string, file: string): Sidecar {
  const fail = (message: string) => new AccessRuleError(message);
  const { files, ...rule } = validated(parseControlFile(text, file, fail), sidecarSchema, file, fail);
  const overrides = new Map<string, AccessRule>();
  for (const [name, override] of Object.entries(files ?? {})) {
    // Override keys are plain names of files in the sidecar's own folder: no path, so no `..`.
    if (name.includes('/') || name.includes('\\') || name === '.' || name === '..') {
      throw fail(`${file}: "files" key "${name}" must be the name of a file in this folder (no path)`);
    }
    const key = name.normalize('NFC');
    if (overrides.has(key)) throw fail(`${file}: "files" names "${name}" twice`);
    overrides.set(key, override);
  }
  return { rule, overrides };
}

// ---------------------------------------------------------------------------------------------
// Access resolution

/**
 * The rule in force in a folder: its own sidecar's, else the inherited one (without the parent's
 * per-file overrides), else nobody. A sidecar that cannot be used makes the folder `broken`: its
 * files (and those of subfolders that inherit it) fail rather than fall back to wider access.
 */
export type FolderRule = { kind: 'rule'; sidecar: string | undefined; sidecarRule: Sidecar } | { kind: 'broken'; sidecar: string; error: AccessRuleError };

/** Deny by default: no sidecar at or above a folder means no one has access. */
export const NO_SIDECAR: FolderRule = { kind: 'rule', sidecar: undefined, sidecarRule: { rule: {}, overrides: new Map() } };

/** What a subfolder inherits: the same rule, minus the per-file overrides that only apply here. */
export function inheritedRule(rule: FolderRule): FolderRule {
  return rule.kind === 'rule' ? { ...rule, sidecarRule: { rule: rule.sidecarRule.rule, overrides: new Map() } } : rule;
}

/**
 * Checks a folder's sidecar against the names in that folder: an override for a file that is not
 * there is an error, because a misspelt name would silently leave the file with the folder's
 * (often wider) rule.
 */
export function checkOverrides(sidecar: Sidecar, file: string, fileNames: ReadonlySet<string>): void {
  for (const name of sidecar.overrides.keys()) {
    if (!fileNames.has(name)) throw new AccessRuleError(`${file}: "files" names "${name}", which is not a file in that folder`);
  }
}

export type FileAccess =
  | {
      ok: true;
      access: AccessEntry[];
      /** `USER:id` / `GROUP:id` named by the rule. */ principals: string[];
      /** No sidecar at or above the file: denied to all (the sync warns). */
      uncovered?: true;
    }
  | {
      ok: false;
      error: AccessRuleError;
      principals: string[];
      /**
       * What the source still grants for certain: the rule's known principals when it names someone
       * unknown, nobody when the sidecar cannot be used at all (fail closed: an unparsable edit may
       * have withdrawn anyone). The engine narrows the staged access list to it.
       */
      accessAtMost: AccessEntry[];
    };

/**
 * The access list of a file named `fileName` (NFC) directly in a folder with rule `folder`. A rule
 * naming a user or group the directory does not know is an error for that file only.
 */
export function resolveFileAccess(folder: FolderRule, fileName: string, directory: Pick<Directory, 'userIds' | 'groupIds'>): FileAccess {
  if (folder.kind === 'broken') return { ok: false, error: folder.error, principals: [], accessAtMost: [] };
  const rule = folder.sidecarRule.overrides.get(fileName) ?? folder.sidecarRule.rule;
  const users = [...new Set(rule.users ?? [])].sort(compareCodeUnits);
  const groups = [...new Set(rule.groups ?? [])].sort(compareCodeUnits);
  const principals = [...groups.map((g) => `GROUP:${g}`), ...users.map((u) => `USER:${u}`)];
  const unknown = [
    ...users.filter((u) => !directory.userIds.has(u)).map((u) => `user "${u}"`),
    ...groups.filter((g) => !directory.groupIds.has(g)).map((g) => `group "${g}"`),
  ];
  const access: Principal[] = [...users.map((u) => ({ type: 'USER' as const, nativeId: u })), ...groups.map((g) => ({ type: 'GROUP' as const, nativeId: g }))];
  if (unknown.length > 0) {
    return {
      ok: false,
      principals,
      error: new AccessRuleError(
        `${folder.sidecar ?? 'access rule'}: unknown ${unknown.join(', ')} (not in the directory file); the file is not synced until this is fixed`,
      ),
      accessAtMost: access.filter((a) => (a.type === 'USER' ? directory.userIds : directory.groupIds).has(a.nativeId)),
    };
  }
  if (rule.public === true) return { ok: true, access: [EVERYONE], principals };
  return { ok: true, access, principals, ...(folder.sidecar === undefined ? { uncovered: true as const } : {}) };
}
