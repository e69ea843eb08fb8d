import { EVERYONE, type AccessEntry, type AttributeValue, type FileRecord, type GroupRecord, type LazyHtml, type Principal, type UserRecord } from '../adapter';
import type { AttributeRowsMapping, DocumentsMapping, GroupsMapping, SqlMapping, UsersMapping } from './sql-mapping-schema';
import { documentView, renderDocument, renderUrl } from './sql-render';
import { attributeValue, flag, idText, pick, rowAttributes, setOwn, text, type Row } from './sql-values';

/** A row that cannot become a record; the run goes on (a `failure` event) within the error budget. */
export class SqlRowError extends Error {
  override readonly name = 'SqlRowError';
}

/** Users and groups a run read: access entries and members naming anyone else are left out. */
export interface Directory {
  users: UserRecord[];
  groups: GroupRecord[];
  userIds: ReadonlySet<string>;
  groupIds: ReadonlySet<string>;
  /** Rows that could not be read, as failures. */
  problems: Array<{ kind: 'user' | 'group'; nativeId?: string; error: Error }>;
}

function isoTime(value: unknown): string | undefined {
  if (value instanceof Date) return Number.isNaN(value.getTime()) ? undefined : value.toISOString();
  const t = text(value);
  if (t === undefined) return undefined;
  const ms = Date.parse(/^\d{4}-\d{2}-\d{2} \d/.test(t) && !/(Z|[+-]\d{2}(:?\d{2})?)$/.test(t) ? `${t.replace(' ', 'T')}Z` : t);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

function absoluteUrl(value: string | undefined, id: string): string {
  try {
    if (value !== undefined && /^https?:$/.test(new URL(value).protocol)) return value;
  } catch {
    // reported below
  }
  throw new SqlRowError(`document ${id}: URL ${JSON.stringify(value ?? null)} is not an absolute http(s) URL`);
}

function optionalText(row: Row, column: string | undefined): string | undefined {
  if (column === undefined) return undefined;
  const value = text(pick(row, column));
  return value === undefined || value.trim() === '' ? undefined : value;
}

/**
 * Key-value attribute rows grouped by owner: one value per name as its type reads it, a list when
 * a name has several rows (or its type is `list`). Rows without an owner, a name or a value are skipped.
 */
export function attributesByOwner(rows: readonly Row[], mapping: AttributeRowsMapping): Map<string, Record<string, AttributeValue>> {
  const raw = new Map<string, Map<string, unknown[]>>();
  for (const row of rows) {
    const owner = idText(pick(row, mapping.owner));
    const name = text(pick(row, mapping.name))?.trim();
    const value = pick(row, mapping.value);
    if (owner === undefined || !name || value === null || value === undefined) continue;
    const names = raw.get(owner) ?? new Map<string, unknown[]>();
    raw.set(owner, names);
    names.set(name, [...(names.get(name) ?? []), value]);
  }
  const out = new Map<string, Record<string, AttributeValue>>();
  for (const [owner, names] of raw) {
    const attrs: Record<string, AttributeValue> = {};
    for (const [name, values] of names) {
      const type = mapping.types[name] ?? 'auto';
      const single = values.length === 1 && type !== 'list';
      const value = single
        ? attributeValue(values[0], { column: name, type, separator: ',' })
        : values
            .map((v) => text(v))
            .filter((v): v is string => v !== undefined)
            .sort();
      if (value !== undefined) setOwn(attrs, name, value);
    }
    out.set(owner, attrs);
  }
  return out;
}

/** A document row's id, title, policy inputs (`extra`: from attribute rows; columns win) and what its templates see. */
function documentParts(row: Row, mapping: DocumentsMapping, extra: Readonly<Record<string, AttributeValue>>) {
  const id = idText(pick(row, mapping.id));
  if (id === undefined) throw new SqlRowError(`a document row has no ${mapping.id}`);
  const title = optionalText(row, mapping.title)?.trim() ?? `Untitled ${id}`;
  const attributes = { ...extra, ...rowAttributes(row, mapping.attributes) };
  return { id, title, attributes, view: documentView(row, mapping, id, title, attributes) };
}

/** A document's page, rendered from its whole row (content columns and all). Throws SqlRowError. */
export function documentPage(row: Row, mapping: DocumentsMapping, template: string, extra: Readonly<Record<string, AttributeValue>> = {}): string {
  return renderDocument(template, documentParts(row, mapping, extra).view);
}

/**
 * A document row as a file: its page rendered (or, given `lazy`, the content it makes for the
 * file: the row was listed without its content columns), its policy inputs (`extra`: from
 * attribute rows; columns win), and `access` as given. Throws SqlRowError.
 */
export function documentRecord(
  row: Row,
  mapping: DocumentsMapping,
  template: string,
  access: readonly AccessEntry[],
  extra: Readonly<Record<string, AttributeValue>> = {},
  lazy?: (nativeId: string) => LazyHtml,
): FileRecord {
  const { id, title, attributes, view } = documentParts(row, mapping, extra);
  const url = mapping.url !== undefined ? optionalText(row, mapping.url) : renderUrl(mapping.urlTemplate ?? '', view);
  const customAttributes: Record<string, string> = {};
  for (const [name, column] of Object.entries(mapping.customAttributes)) {
    const value = optionalText(row, column);
    if (value !== undefined) setOwn(customAttributes, name, value);
  }
  const createdAt = mapping.createdAt === undefined ? undefined : isoTime(pick(row, mapping.createdAt));
  const createdBy = optionalText(row, mapping.createdBy);
  const modifiedBy = optionalText(row, mapping.modifiedBy);
  return {
    nativeId: id,
    name: title,
    externalUrl: absoluteUrl(url, id),
    mimeType: 'text/html',
    content: lazy ? lazy(id) : { kind: 'html', html: renderDocument(template, view) },
    access,
    ...(createdAt ? { createdAt } : {}),
    ...(createdBy ? { createdBy } : {}),
    ...(modifiedBy ? { modifiedBy } : {}),
    ...(Object.keys(customAttributes).length > 0 ? { customAttributes } : {}),
    attributes,
  };
}

/**
 * A document's access rows name a type that is neither USER, GROUP nor EVERYONE: the document
 * fails rather than guess, and `accessAtMost` (the rows it could resolve) is what the source still
 * grants for certain, to narrow its staged access list to.
 */
export class UnresolvedAccessError extends SqlRowError {
  constructor(
    message: string,
    readonly accessAtMost: readonly AccessEntry[],
  ) {
    super(message);
  }
}

/**
 * Access rows grouped by document id. A row names a user or a group of this source (dropped when
 * the directory does not know it: never a dangling grant), or EVERYONE. A row of another type
 * makes its document fail rather than guess (an UnresolvedAccessError).
 */
export function accessByDocument(
  rows: readonly Row[],
  mapping: NonNullable<DocumentsMapping['access']>,
  dir: Pick<Directory, 'userIds' | 'groupIds'>,
): Map<string, AccessEntry[] | UnresolvedAccessError> {
  const out = new Map<string, AccessEntry[]>();
  const unknownTypes = new Map<string, string>();
  const seen = new Set<string>();
  for (const row of rows) {
    const doc = idText(pick(row, mapping.document));
    if (doc === undefined) continue;
    const entries = out.get(doc) ?? [];
    out.set(doc, entries);
    const type = (mapping.type === undefined ? mapping.defaultType : (text(pick(row, mapping.type)) ?? '')).trim().toUpperCase();
    if (type === 'EVERYONE') {
      if (!seen.has(`${doc}\0*`)) entries.push(EVERYONE);
      seen.add(`${doc}\0*`);
      continue;
    }
    if (type !== 'USER' && type !== 'GROUP') {
      if (!unknownTypes.has(doc)) unknownTypes.set(doc, type);
      continue;
    }
    const principal = idText(pick(row, mapping.principal));
    if (principal === undefined || !(type === 'USER' ? dir.userIds : dir.groupIds).has(principal)) continue;
    const key = `${doc}\0${type}\0${principal}`;
    if (seen.has(key)) continue;
    seen.add(key);
    entries.push({ type, nativeId: principal });
  }
  const failed = [...unknownTypes].map(([doc, type]) => {
    const message = `document ${doc}: access type ${JSON.stringify(type)} is not USER, GROUP or EVERYONE`;
    return [doc, new UnresolvedAccessError(message, out.get(doc) ?? [])] as const;
  });
  return new Map<string, AccessEntry[] | UnresolvedAccessError>([...out, ...failed]);
}

/** Role names by user id (sorted, unique). */
export function rolesByUser(rows: readonly Row[], mapping: NonNullable<SqlMapping['roles']>): Map<string, string[]> {
  const sets = new Map<string, Set<string>>();
  for (const row of rows) {
    const user = idText(pick(row, mapping.user));
    const role = text(pick(row, mapping.role))?.trim();
    if (user === undefined || !role) continue;
    const set = sets.get(user) ?? new Set<string>();
    set.add(role);
    sets.set(user, set);
  }
  return new Map([...sets].map(([user, set]) => [user, [...set].sort()]));
}

/** A user row as a user. `active` that is NULL or unreadable counts as inactive (never grants by accident). Throws SqlRowError. */
export function userRecord(
  row: Row,
  mapping: UsersMapping,
  roles: readonly string[] | undefined,
  extra: Readonly<Record<string, AttributeValue>> = {},
): UserRecord {
  const id = idText(pick(row, mapping.id));
  if (id === undefined) throw new SqlRowError(`a user row has no ${mapping.id}`);
  const email = text(pick(row, mapping.email))?.trim();
  if (!email || !/^[^@\s]+@[^@\s]+$/.test(email)) throw new SqlRowError(`user ${id}: ${JSON.stringify(email ?? null)} is not an email address`);
  const fullName = optionalText(row, mapping.name)?.trim();
  return {
    nativeId: id,
    email,
    ...(fullName ? { fullName } : {}),
    active: mapping.active === undefined ? true : flag(pick(row, mapping.active)) === true,
    attributes: { ...extra, ...rowAttributes(row, mapping.attributes) },
    roles: roles ?? [],
  };
}

/** Group rows and member rows as groups with direct members of this source (unknown members and self-membership left out). */
export function groupRecords(groupRows: readonly Row[], memberRows: readonly Row[], mapping: GroupsMapping, userIds: ReadonlySet<string>): GroupRecord[] {
  const groups = new Map<string, { name?: string; members: Principal[]; keys: Set<string> }>();
  for (const row of groupRows) {
    const id = idText(pick(row, mapping.id));
    if (id === undefined || groups.has(id)) continue;
    const name = optionalText(row, mapping.name);
    groups.set(id, { ...(name ? { name } : {}), members: [], keys: new Set() });
  }
  const m = mapping.members;
  for (const row of memberRows) {
    const group = groups.get(idText(pick(row, m.group)) ?? '');
    const member = idText(pick(row, m.member));
    const type = m.type === undefined ? 'USER' : (text(pick(row, m.type)) ?? '').trim().toUpperCase();
    if (!group || member === undefined || (type !== 'USER' && type !== 'GROUP')) continue;
    if (type === 'USER' ? !userIds.has(member) : !groups.has(member) || groups.get(member) === group) continue;
    const key = `${type}\0${member}`;
    if (group.keys.has(key)) continue;
    group.keys.add(key);
    group.members.push({ type, nativeId: member });
  }
  return [...groups].map(([nativeId, g]) => ({
    nativeId,
    ...(g.name ? { name: g.name } : {}),
    members: g.members.sort((a, b) => (a.type + a.nativeId < b.type + b.nativeId ? -1 : 1)),
  }));
}
