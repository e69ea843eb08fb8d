import crypto from 'node:crypto';
import type { AccessEntry, FileRecord, GroupRecord, Principal, UserRecord } from '../adapters/adapter';
import type { BlobStore } from '../blobs/blob-store';
import { changeTime } from '../lib/change-time';
import { fileWireJson } from '../wire/file-wire-json';
import { globalId } from '../wire/global-id';
import type { FileState, FileWrite, GroupState, GroupWrite, PrincipalRef, StagedGroup, UserState, UserWrite } from '../staging/write-path/sync-store';

/** Global ids: `<source>:<native id>` for files and groups, and for users' source accounts (see wire/global-id). */
export { globalId };

/** One-shot hashing (`crypto.hash`): for a few hundred bytes, a Hash object costs more than the digest. */
function hashOf(value: unknown): string {
  return crypto.hash('sha256', JSON.stringify(value), 'hex');
}

function sortedEntries(record: Record<string, unknown> | undefined): Array<[string, unknown]> | null {
  return record ? Object.entries(record).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)) : null;
}

function principalRef(source: string, p: Principal): PrincipalRef {
  return { type: p.type, id: globalId(p.source ?? source, p.nativeId) };
}

/** Access entries as staged: global ids, the wildcard as `GROUP *`, deduplicated and ordered. */
export function accessRefs(source: string, access: readonly AccessEntry[]): PrincipalRef[] {
  return orderedRefs(access.map((a) => (a.type === 'EVERYONE' ? { type: 'GROUP' as const, id: '*' } : principalRef(source, a))));
}

/** Deduplicated and ordered, as staged (and hashed). */
function orderedRefs(refs: readonly PrincipalRef[]): PrincipalRef[] {
  const unique = new Map(refs.map((r) => [`${r.type} ${r.id}`, r]));
  return [...unique.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r);
}

export function memberRefs(source: string, members: readonly Principal[]): PrincipalRef[] {
  return accessRefs(source, members);
}

type Served = Pick<
  FileWrite,
  | 'id'
  | 'name'
  | 'external_url'
  | 'mime_type'
  | 'status'
  | 'size'
  | 'sha1'
  | 'created_at'
  | 'created_by'
  | 'modified_by'
  | 'parent_id'
  | 'parent_name'
  | 'parent_path'
  | 'custom_attributes'
>;

/**
 * Content hashes name their formula. `v2:` hashes the served values without the inline body (its
 * SHA-256 stands for it), where the first formula serialised the body once more among them. A row
 * stored with the first formula is compared with that formula, so upgrading changes no file's
 * `modified_at`; it gets a `v2:` hash the next time it is written.
 */
const CONTENT_HASH_VERSION = 'v2:';

/** The first formula: the served values with the body in them, in this order, and the SHA-256. */
function firstContentHash(s: Served, body: string | null, sha256: string): string {
  return hashOf([
    {
      id: s.id,
      name: s.name,
      external_url: s.external_url,
      mime_type: s.mime_type,
      status: s.status,
      size: s.size,
      sha1: s.sha1,
      body_html: body,
      created_at: s.created_at,
      created_by: s.created_by,
      modified_by: s.modified_by,
      parent_id: s.parent_id,
      parent_name: s.parent_name,
      parent_path: s.parent_path,
      custom_attributes: s.custom_attributes,
    },
    sha256,
  ]);
}

/**
 * What a file changes in staging. `version`, on a file whose served content is unchanged: the
 * source's version moved (a file touched, read again for nothing), so the staged row keeps the new one.
 */
export type FileDecision =
  | { kind: 'unchanged'; version?: string | null }
  | { kind: 'permissions'; permissions: PrincipalRef[]; hash: string; at: string; version?: string | null }
  | { kind: 'added' | 'changed'; row: FileWrite; permissions: PrincipalRef[] };

/**
 * A file's content as staged: its hashes and size, and its inline body or its blob. `body` is
 * undefined when the inline body staged for the file is kept unread (a lazy one's version matched).
 */
interface StoredContent {
  sha256: string;
  sha1: string;
  size: number;
  blobKey: string | null;
  body: string | null | undefined;
  version: string | null;
}

/** Reads a file's staged inline body again; null when staging has none for it. */
export type StagedBodyReader = (id: string) => Promise<string | null>;

function inlineContent(html: string, version: string | null): StoredContent {
  const bytes = Buffer.from(html, 'utf8');
  return { sha256: crypto.hash('sha256', bytes, 'hex'), sha1: crypto.hash('sha1', bytes, 'hex'), size: bytes.length, blobKey: null, body: html, version };
}

/** True when the source's version says the content staged for the file is still its content. */
function sameVersion(version: string | null, state: FileState | undefined): state is FileState & { sha256: string; sha1: string } {
  return version !== null && state?.status === 'active' && state.source_version === version && Boolean(state.sha256) && Boolean(state.sha1);
}

/**
 * Hashes inline content; stores binary content in the blob store. Content whose source version
 * equals the stored one is not read: a lazy inline body stays as staged, binary bytes stay in the
 * blob store while it still has them.
 */
async function storedContent(record: FileRecord, state: FileState | undefined, blobs: BlobStore): Promise<StoredContent> {
  const content = record.content;
  if (content.kind === 'html') {
    if ('html' in content) return inlineContent(content.html, content.version ?? null);
    const version = content.version ?? null;
    // Kept only under the current hash formula: the first one hashes the body itself.
    if (sameVersion(version, state) && state.blob_key === null && state.content_hash?.startsWith(CONTENT_HASH_VERSION)) {
      return { sha256: state.sha256, sha1: state.sha1, size: Number(state.size), blobKey: null, body: undefined, version };
    }
    return inlineContent(await content.load(), version);
  }
  const version = content.version ?? null;
  // The stored bytes are reused only while the blob store still has them: a blob lost from it
  // (a partial restore, a switch of BLOB_STORE) is read from the source again.
  if (sameVersion(version, state) && state.blob_key && (await blobs.stat(state.blob_key))) {
    return { sha256: state.sha256, sha1: state.sha1, size: Number(state.size), blobKey: state.blob_key, body: null, version };
  }
  const stored = await blobs.put(await content.open());
  return { sha256: stored.sha256, sha1: stored.sha1, size: stored.size, blobKey: stored.key, body: null, version };
}

/**
 * Decides what a file record changes in staging. Content is read only when the source's version
 * differs from the stored one (or is unknown), or the blob store lost the stored bytes; binary
 * content is written to the blob store before the row that points at it. A kept inline body is
 * read back from staging (`stagedBody`) when the row must be written again for its metadata.
 * `modified_at` moves exactly when the served representation changes.
 */
export async function decideFile(
  source: string,
  record: FileRecord,
  state: FileState | undefined,
  blobs: BlobStore,
  at: string,
  stagedBody?: StagedBodyReader,
): Promise<FileDecision> {
  const id = globalId(source, record.nativeId);
  const permissions = accessRefs(source, record.access);
  const permissionsHash = hashOf(permissions);

  const content = await storedContent(record, state, blobs);

  // What is served, the inline body aside: its SHA-256 stands for it in the content hash.
  const served: Served = {
    id,
    name: record.name,
    external_url: record.externalUrl,
    mime_type: record.mimeType,
    status: 'active',
    size: content.size,
    sha1: content.sha1,
    created_at: record.createdAt ?? null,
    created_by: record.createdBy ?? null,
    modified_by: record.modifiedBy ?? null,
    parent_id: record.parent ? globalId(source, record.parent.nativeId) : null,
    parent_name: record.parent?.name ?? null,
    parent_path: record.parent?.path ?? null,
    custom_attributes: record.customAttributes ? JSON.stringify(Object.fromEntries(sortedEntries(record.customAttributes) ?? [])) : null,
  };
  const contentHash = `${CONTENT_HASH_VERSION}${hashOf([served, content.sha256])}`;
  const storedHash = state?.status === 'active' ? state.content_hash : null;
  const sameContent =
    storedHash !== null &&
    (storedHash === contentHash ||
      (!storedHash.startsWith(CONTENT_HASH_VERSION) && storedHash === firstContentHash(served, content.body ?? null, content.sha256)));

  if (state && sameContent) return keptContent(accessChange(permissions, permissionsHash, state, at), state, content.version);
  if (content.body === undefined) {
    const body = state ? await stagedBody?.(id) : undefined;
    // Staging lost the body it stands for: read the content from the source after all.
    if (body === undefined || body === null) return decideFile(source, record, state && { ...state, source_version: null }, blobs, at);
    content.body = body;
  }
  const modifiedAt = changeTime(at, state?.modified_at);
  // Every column spelled out in one literal: spreading `served` and adding the rest made V8 build
  // each row property by property, which cost more than all of the hashing above.
  const row: FileWrite = {
    id,
    name: served.name,
    external_url: served.external_url,
    mime_type: served.mime_type,
    status: served.status,
    size: served.size,
    sha1: served.sha1,
    body_html: content.body,
    created_at: served.created_at,
    created_by: served.created_by,
    modified_by: served.modified_by,
    parent_id: served.parent_id,
    parent_name: served.parent_name,
    parent_path: served.parent_path,
    custom_attributes: served.custom_attributes,
    source,
    native_id: record.nativeId,
    sha256: content.sha256,
    blob_key: content.blobKey,
    modified_at: modifiedAt,
    content_hash: contentHash,
    permissions_hash: permissionsHash,
    permissions_modified_at: state?.permissions_hash === permissionsHash ? (state.permissions_modified_at ?? modifiedAt) : modifiedAt,
    source_version: content.version,
    deleted_at: null,
    seen_run: null,
    wire_json: '',
  };
  row.wire_json = fileWireJson(row);
  return { kind: state ? 'changed' : 'added', row, permissions };
}

/** A decision on a file whose served content is unchanged, with the source's version when it moved (not when it is gone: nothing to compare then). */
function keptContent(decision: Extract<FileDecision, { kind: 'unchanged' | 'permissions' }>, state: FileState, version: string | null): FileDecision {
  return version === null || state.source_version === version ? decision : { ...decision, version };
}

export type AccessDecision = Extract<FileDecision, { kind: 'unchanged' | 'permissions' }> | { kind: 'missing' };

/**
 * What a live file's access list changes in staging, content aside (access reconciliation):
 * `missing` when staging does not serve the file, so there is nothing to rewrite.
 */
export function decideAccess(source: string, access: readonly AccessEntry[], state: FileState | undefined, at: string): AccessDecision {
  if (state?.status !== 'active') return { kind: 'missing' };
  const permissions = accessRefs(source, access);
  return accessChange(permissions, hashOf(permissions), state, at);
}

/**
 * What narrowing a failed file's staged access list to what the source still grants changes: the
 * staged entries also in `atMost`, never one more (`missing` when staging does not serve the file).
 */
export function decideNarrowedAccess(
  source: string,
  atMost: readonly AccessEntry[],
  staged: readonly PrincipalRef[],
  state: FileState | undefined,
  at: string,
): AccessDecision {
  if (state?.status !== 'active') return { kind: 'missing' };
  const granted = new Set(accessRefs(source, atMost).map((r) => `${r.type} ${r.id}`));
  const permissions = orderedRefs(staged.filter((r) => granted.has(`${r.type} ${r.id}`)));
  return accessChange(permissions, hashOf(permissions), state, at);
}

/** Unchanged when the stored access list hashes the same, else a rewrite whose time moves past the stored one. */
function accessChange(permissions: PrincipalRef[], hash: string, state: FileState, at: string): Extract<FileDecision, { kind: 'unchanged' | 'permissions' }> {
  if (state.permissions_hash === hash) return { kind: 'unchanged' };
  return { kind: 'permissions', permissions, hash, at: changeTime(at, state.permissions_modified_at ?? undefined) };
}

export function decideUser(source: string, record: UserRecord, state: UserState | undefined, at: string): UserWrite | undefined {
  const hash = hashOf([record.email, record.fullName ?? null, record.active, sortedEntries(record.metadata)]);
  if (state?.content_hash === hash) return undefined;
  return {
    id: globalId(source, record.nativeId),
    source,
    native_id: record.nativeId,
    email: record.email,
    full_name: record.fullName ?? null,
    state: record.active ? 'Active' : 'Inactive',
    modified_at: changeTime(at, state?.modified_at),
    metadata: record.metadata ? JSON.stringify(record.metadata) : null,
    content_hash: hash,
  };
}

export function decideGroup(
  source: string,
  record: GroupRecord,
  state: GroupState | undefined,
  at: string,
): { row: GroupWrite; members: PrincipalRef[] } | undefined {
  const members = memberRefs(source, record.members);
  const hash = groupHash(record.name ?? null, record.createdAt ?? null, record.metadata, members);
  if (state?.content_hash === hash) return undefined;
  return {
    row: {
      id: globalId(source, record.nativeId),
      source,
      native_id: record.nativeId,
      name: record.name ?? null,
      created_at: record.createdAt ?? null,
      modified_at: changeTime(at, state?.modified_at),
      metadata: record.metadata ? JSON.stringify(record.metadata) : null,
      content_hash: hash,
    },
    members,
  };
}

/** A group's content hash: what it serves, its direct members included. */
function groupHash(name: string | null, createdAt: string | null, metadata: Record<string, unknown> | undefined, members: readonly PrincipalRef[]): string {
  return hashOf([name, createdAt, sortedEntries(metadata), members]);
}

/**
 * The content hash of a group row narrowing wrote: the hash a record serving the same would have,
 * so a list read whole later that is what narrowing left moves nothing, and any other is written.
 * A staged row whose metadata does not parse gets a hash no record has: written whole next time.
 */
function narrowedGroupHash(row: StagedGroup['row'], members: readonly PrincipalRef[]): string {
  try {
    const metadata = row.metadata === null ? undefined : (JSON.parse(row.metadata) as Record<string, unknown>);
    return groupHash(row.name, row.created_at, metadata, members);
  } catch {
    return `narrowed:${hashOf(members)}`;
  }
}

/**
 * What narrowing a failed group's staged members to those the source still lists changes: the
 * staged members also in `atMost` (a sub-group compared as an entry, like a user), never one more.
 * Undefined when that leaves them as staged, or staging lacks the group (it stays unstaged). The
 * row is written again as staged, its `modified_at` moved on as for any change of members.
 */
export function decideNarrowedMembers(
  source: string,
  atMost: readonly Principal[],
  staged: StagedGroup | undefined,
  at: string,
): { row: GroupWrite; members: PrincipalRef[] } | undefined {
  if (!staged) return undefined;
  const key = (r: PrincipalRef) => `${r.type} ${r.id}`;
  const listed = new Set(memberRefs(source, atMost).map(key));
  const members = orderedRefs(staged.members.filter((m) => listed.has(key(m))));
  if (members.length === staged.members.length) return undefined;
  const row = { ...staged.row, modified_at: changeTime(at, staged.row.modified_at), content_hash: narrowedGroupHash(staged.row, members) };
  return { row, members };
}
