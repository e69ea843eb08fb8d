import fs from 'node:fs';
import path from 'node:path';
import { seededRandom } from '../../bench/seeded-random';
import { personIdOf } from '../../src/staging/person-id';

/**
 * A generated folder tree in the filesystem adapter's convention (src/demo/corpus/_README.md),
 * big enough to matter: mostly HTML and Markdown, some text and small PDF files, in nested
 * folders whose `_access.yaml` sidecars name users and groups of a `_directory.yaml` (nested
 * groups, an inactive user), with one public folder, a folder nobody may see (no sidecar),
 * explicit "no one" rules, per-file overrides and files the adapter must skip. Deterministic
 * for a seed, and it returns what the gateway should serve, so tests need not re-derive it.
 */

export type MixedKind = 'html' | 'md' | 'txt' | 'pdf';

/** An access rule as a sidecar states it (native ids). */
export interface MixedRule {
  public?: true;
  users?: string[];
  groups?: string[];
}

export interface MixedFile {
  /** Relative path, `/`-separated: the native id. */
  path: string;
  kind: MixedKind;
  /** The served name: the HTML title, the Markdown heading, else the base name. */
  title: string;
  mimeType: string;
  /** The rule in force for this file (its folder's, inherited, or a per-file override). */
  rule: MixedRule;
  /** Named in its folder's sidecar (`files:`): deleting it breaks that sidecar. */
  overridden?: true;
}

export interface MixedTree {
  root: string;
  files: MixedFile[];
  /** Relative paths of files that must not be served (unsupported types, reserved names). */
  skipped: string[];
  /** Relative folder paths ('' is the root) and the rule in force in each. */
  folders: Map<string, MixedRule>;
  users: string[];
  groups: string[];
}

export interface MixedTreeOptions {
  /** Supported (served) files; 10,000 unless told. */
  files?: number;
  /** Files the adapter skips. */
  skipped?: number;
  seed?: number;
  /** Every file's mtime: in the past, so nothing is "racy" (modified during a scan). */
  mtime?: Date;
}

export const MIXED_MTIME = new Date('2025-03-01T12:00:00Z');

const MIME: Readonly<Record<MixedKind, string>> = { html: 'text/html', md: 'text/html', txt: 'text/plain', pdf: 'application/pdf' };

const WORDS = 'alpha beta gamma delta budget roadmap incident policy review release customer onboarding security audit quarter planning migration latency capacity'.split(' ');

/** A minimal, valid one-page PDF showing `text` (offsets in the xref table are exact). */
export function tinyPdf(text: string): Buffer {
  const escaped = text.replace(/[\\()]/g, (c) => `\\${c}`);
  const stream = `BT /F1 12 Tf 10 50 Td (${escaped}) Tj ET`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 300 100] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${Buffer.byteLength(stream, 'latin1')} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ];
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n${offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('')}`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

function sidecarYaml(rule: MixedRule, overrides: ReadonlyMap<string, MixedRule> = new Map()): string {
  const line = (r: MixedRule): string =>
    r.public ? 'public: true' : `{ users: [${(r.users ?? []).join(', ')}], groups: [${(r.groups ?? []).join(', ')}] }`;
  const lines = ['# generated'];
  if (rule.public) lines.push('public: true');
  else {
    lines.push(`users: [${(rule.users ?? []).join(', ')}]`, `groups: [${(rule.groups ?? []).join(', ')}]`);
  }
  if (overrides.size) {
    lines.push('files:');
    for (const [name, r] of overrides) lines.push(`  ${JSON.stringify(name)}: ${r.public ? '{ public: true }' : line(r)}`);
  }
  return `${lines.join('\n')}\n`;
}

/** Users of the directory: `u00`…`u29`, the first 27 active. */
const USERS = 30;
const ACTIVE_USERS = 27;

/**
 * Served access entries of a rule, as `TYPE id` strings (sorted), for a source name: a user entry
 * serves the person its account's email maps to, and an inactive account's entry serves nothing.
 */
export function servedAccess(rule: MixedRule, source: string): string[] {
  if (rule.public) return ['GROUP *'];
  const users = (rule.users ?? []).filter((u) => Number(u.slice(1)) < ACTIVE_USERS).map((u) => `USER ${personIdOf(`${source}:${u}`, `${u}@corp.example`)}`);
  return [...(rule.groups ?? []).map((g) => `GROUP ${source}:${g}`), ...users].sort();
}

/** Writes the tree under `root` (which must exist and be empty) and returns what it holds. */
export function generateMixedTree(root: string, options: MixedTreeOptions = {}): MixedTree {
  const total = options.files ?? 10_000;
  const skippedCount = options.skipped ?? 150;
  const random = seededRandom(options.seed ?? 7);
  const mtime = options.mtime ?? MIXED_MTIME;
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)] as T;
  const some = <T>(list: readonly T[], n: number): T[] => [...new Set(Array.from({ length: n }, () => pick(list)))].sort();

  // The directory: 30 users (3 inactive), department and team groups nested under `everyone-staff`.
  const users = Array.from({ length: USERS }, (_, i) => `u${String(i).padStart(2, '0')}`);
  const teams = Array.from({ length: 6 }, (_, i) => `team-${i}`);
  const depts = Array.from({ length: 8 }, (_, i) => `dept-${i}`);
  const groups = ['staff', ...depts, ...teams];
  const teamMembers = new Map(teams.map((t) => [t, some(users, 4)]));
  const deptMembers = new Map(depts.map((d, i) => [d, { users: some(users, 3), groups: [teams[i % teams.length] as string] }]));
  const directory = [
    'users:',
    ...users.map((u, i) => `  - { id: ${u}, email: ${u}@corp.example, full_name: User ${u.toUpperCase()}, active: ${i < ACTIVE_USERS} }`),
    'groups:',
    '  - id: staff',
    '    name: All Staff',
    `    members: [${[...depts.map((d) => `{ group: ${d} }`), '{ user: u29 }'].join(', ')}]`,
    ...depts.flatMap((d) => {
      const m = deptMembers.get(d) ?? { users: [], groups: [] };
      return [`  - id: ${d}`, `    name: Department ${d.slice(5)}`, `    members: [${[...m.groups.map((g) => `{ group: ${g} }`), ...m.users.map((u) => `{ user: ${u} }`)].join(', ')}]`];
    }),
    ...teams.flatMap((t) => [`  - id: ${t}`, `    name: Team ${t.slice(5)}`, `    members: [${(teamMembers.get(t) ?? []).map((u) => `{ user: ${u} }`).join(', ')}]`]),
  ].join('\n');

  // Folders and their rules: `own` is a sidecar of the folder itself; without one it inherits.
  const folders = new Map<string, MixedRule>();
  const own = new Map<string, MixedRule>();
  const addFolder = (rel: string, rule?: MixedRule): void => {
    if (rule) own.set(rel, rule);
    const parent = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/')) : '';
    folders.set(rel, rule ?? (rel === '' ? {} : (folders.get(parent) ?? {})));
  };
  addFolder(''); // no sidecar at the root: deny by default
  addFolder('public', { public: true });
  addFolder('public/news');
  addFolder('public/news/2025');
  addFolder('drafts'); // nobody
  addFolder('drafts/old');
  addFolder('company', { groups: ['staff'] });
  addFolder('company/handbook');
  for (const [i, d] of depts.entries()) {
    addFolder(d, { groups: [d] });
    for (const [j, t] of ['wiki', 'projects', 'meetings', 'private'].entries()) {
      const rel = `${d}/${t}`;
      if (t === 'private') addFolder(rel, { users: some(users, 2) });
      else if (j === 1) addFolder(rel, { groups: [teams[(i + j) % teams.length] as string], users: some(users, 1) });
      else addFolder(rel);
      addFolder(`${rel}/archive`, t === 'meetings' && i % 2 === 0 ? {} : undefined); // `{}`: explicitly no one
      if (j === 0) addFolder(`${rel}/archive/2024`);
    }
  }
  const folderList = [...folders.keys()];

  // Files spread over the folders; names unique per folder.
  const files: MixedFile[] = [];
  const byFolder = new Map<string, MixedFile[]>();
  for (let n = 0; n < total; n += 1) {
    const folder = folderList[n % folderList.length] as string;
    const r = random();
    const kind: MixedKind = r < 0.55 ? 'html' : r < 0.85 ? 'md' : r < 0.95 ? 'txt' : 'pdf';
    const base = `${pick(WORDS)}-${String(n).padStart(5, '0')}`;
    const rel = folder === '' ? `${base}.${kind}` : `${folder}/${base}.${kind}`;
    const title = kind === 'html' ? `Page ${n}: ${pick(WORDS)}` : kind === 'md' ? `Note ${n}` : base;
    const file: MixedFile = { path: rel, kind, title, mimeType: MIME[kind], rule: folders.get(folder) ?? {} };
    files.push(file);
    const list = byFolder.get(folder) ?? [];
    list.push(file);
    byFolder.set(folder, list);
  }

  // Per-file overrides in some folders that have a sidecar of their own.
  const overrides = new Map<string, Map<string, MixedRule>>();
  for (const folder of [...own.keys()].filter((_, i) => i % 3 === 1)) {
    const candidates = byFolder.get(folder) ?? [];
    const chosen = candidates.slice(0, 2);
    const map = new Map<string, MixedRule>();
    for (const [k, f] of chosen.entries()) {
      const rule: MixedRule = k === 0 ? { users: some(users, 1) } : { groups: [pick(teams)] };
      map.set(path.posix.basename(f.path), rule);
      f.rule = rule;
      f.overridden = true;
    }
    if (map.size) overrides.set(folder, map);
  }

  // Write everything.
  const write = (rel: string, content: string | Buffer): void => {
    const abs = path.join(root, rel);
    fs.writeFileSync(abs, content);
    fs.utimesSync(abs, mtime, mtime);
  };
  for (const folder of folderList) if (folder) fs.mkdirSync(path.join(root, folder), { recursive: true });
  write('_directory.yaml', `${directory}\n`);
  for (const [folder, rule] of own) write(path.posix.join(folder, '_access.yaml'), sidecarYaml(rule, overrides.get(folder)));
  for (const [n, f] of files.entries()) {
    const words = Array.from({ length: 20 + Math.floor(random() * 120) }, () => pick(WORDS)).join(' ');
    if (f.kind === 'html') write(f.path, `<!DOCTYPE html><html><head><title>${f.title}</title></head><body><h1>${f.title}</h1><p>${words}</p></body></html>\n`);
    else if (f.kind === 'md') write(f.path, `# ${f.title}\n\n${words}\n\n- item ${n}\n- *${pick(WORDS)}*\n`);
    else if (f.kind === 'txt') write(f.path, `${f.title}\n\n${words}\n`);
    else write(f.path, tinyPdf(`Report ${n} ${words.slice(0, 60)}`));
  }
  const skipped: string[] = [];
  const unsupported = ['csv', 'png', 'zip', 'json', 'xlsx'];
  for (let n = 0; n < skippedCount; n += 1) {
    const folder = folderList[(n * 7) % folderList.length] as string;
    const name = n % 5 === 4 ? `_scratch-${n}.html` : n % 5 === 3 ? `.hidden-${n}.md` : `data-${n}.${unsupported[Math.floor(n / 5) % unsupported.length]}`;
    const rel = folder === '' ? name : `${folder}/${name}`;
    write(rel, `skip me ${n}\n`);
    skipped.push(rel);
  }
  return { root, files, skipped, folders, users, groups };
}
