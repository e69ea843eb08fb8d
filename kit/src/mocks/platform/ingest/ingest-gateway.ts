/**
 * One ingest of a gateway, the way the platform runs it (reference §2): the permission model,
 * every file through its nextLinks, each active file's metadata (inline HTML body) and access
 * list, its binary only when `last_modified_datetime` differs from the previous ingest, then
 * groups with their direct members, then users. Files deleted, gone from the listing or failing
 * leave the index; a failing file that was ingested before keeps its previous version.
 */
import { ConcurrencyPool } from 'content-gateway/lib';
import type { AccessEntry, CorpusSnapshot, DirectoryGroup, DirectoryUser, IngestedFile } from './corpus-snapshot';
import { MIME, baseMime, extractText, htmlToText } from './extract-text';
import { GatewayError, type GatewayReader } from './gateway-reader';

export interface IngestReport {
  source: string;
  startedAt: string;
  finishedAt: string;
  status: 'succeeded' | 'failed';
  error?: string;
  files: number;
  added: string[];
  removed: string[];
  changed: string[];
  /** Binaries downloaded, and binaries whose timestamp had not moved (not downloaded). */
  downloaded: string[];
  downloadSkipped: string[];
  failures: Array<{ id: string; message: string }>;
  users: number;
  groups: number;
  requests: number;
  retries: number;
  waitedMs: number;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

function toEntry(item: unknown): AccessEntry | undefined {
  if (!isObj(item) || item.id === undefined || item.type === undefined) return undefined;
  const entry: AccessEntry = { type: String(item.type), id: String(item.id) };
  if (item.action !== undefined) entry.action = String(item.action);
  return entry;
}

const entries = (items: unknown[]): AccessEntry[] => items.map(toEntry).filter((e): e is AccessEntry => e !== undefined);

async function collect(gen: AsyncGenerator<unknown>): Promise<unknown[]> {
  const out: unknown[] = [];
  for await (const item of gen) out.push(item);
  return out;
}

interface FileWork {
  reader: GatewayReader;
  previous: CorpusSnapshot;
  report: IngestReport;
}

/** One file: metadata (+ inline body), access list, and its binary unless the cache still holds it. */
async function ingestFile(listing: Obj, work: FileWork): Promise<IngestedFile> {
  const { reader, previous, report } = work;
  const id = String(listing.id);
  const detail = await reader.json(reader.idUrl('/v1/files/', id));
  const value = isObj(detail.value) ? detail.value : listing;
  const content = isObj(value.content) ? value.content : {};
  const mimeType = str(content.mime_type) ?? 'application/octet-stream';
  const lastModified = str(value.last_modified_datetime) ?? str(listing.last_modified_datetime);
  const permissions = entries(
    await collect(reader.items(reader.idUrl('/v1/files/', id, '/permissions'), (b) => (isObj(b.value) ? b.value.permissions : undefined))),
  );
  const base = { id, name: str(value.name) ?? id, externalUrl: str(value.external_url) ?? '', lastModified, mimeType, permissions };
  if (baseMime(mimeType) === MIME.html && typeof content.body === 'string') return { ...base, text: htmlToText(content.body), binary: false };
  const cached = previous.files.get(id);
  if (cached?.binary && lastModified !== undefined && cached.lastModified === lastModified) {
    report.downloadSkipped.push(id);
    return { ...base, text: cached.text, binary: true };
  }
  const bytes = await reader.bytes(reader.idUrl('/v1/files/', id, '/download'));
  report.downloaded.push(id);
  return { ...base, text: await extractText(mimeType, bytes), binary: true };
}

async function ingestFiles(work: FileWork, concurrency: number): Promise<Map<string, IngestedFile>> {
  const { reader, previous, report } = work;
  const files = new Map<string, IngestedFile>();
  const listed = new Set<string>();
  const pool = new ConcurrencyPool(concurrency);
  const tasks: Array<Promise<void>> = [];
  for await (const item of reader.items(reader.url('/v1/files'))) {
    if (!isObj(item) || item.id === undefined || listed.has(String(item.id))) continue;
    const id = String(item.id);
    listed.add(id);
    if (item.status === 'deleted') continue;
    await pool.whenBelow(concurrency * 4);
    tasks.push(
      pool.run(async () => {
        try {
          files.set(id, await ingestFile(item, work));
        } catch (error) {
          report.failures.push({ id, message: (error as Error).message });
          const kept = previous.files.get(id);
          if (kept && error instanceof GatewayError && error.status !== 404) files.set(id, kept);
        }
      }),
    );
  }
  await Promise.all(tasks);
  return files;
}

async function ingestDirectory(reader: GatewayReader): Promise<{ users: DirectoryUser[]; groups: DirectoryGroup[] }> {
  const groups: DirectoryGroup[] = [];
  const seen = new Set<string>();
  for (const item of await collect(reader.items(reader.url('/v1/groups')))) {
    if (!isObj(item) || item.id === undefined || seen.has(String(item.id))) continue;
    seen.add(String(item.id));
    const group: DirectoryGroup = {
      id: String(item.id),
      members: entries(await collect(reader.items(reader.idUrl('/v1/groups/', String(item.id), '/members')))),
    };
    if (typeof item.name === 'string') group.name = item.name;
    groups.push(group);
  }
  const users: DirectoryUser[] = [];
  for (const item of await collect(reader.items(reader.url('/v1/users')))) {
    if (!isObj(item) || item.id === undefined) continue;
    const user: DirectoryUser = { id: String(item.id) };
    if (typeof item.primary_email_addr === 'string') user.email = item.primary_email_addr;
    if (typeof item.full_name === 'string') user.fullName = item.full_name;
    if (typeof item.state === 'string') user.state = item.state;
    users.push(user);
  }
  return { users, groups };
}

function diff(previous: CorpusSnapshot, files: ReadonlyMap<string, IngestedFile>, report: IngestReport): void {
  for (const [id, f] of files) {
    const before = previous.files.get(id);
    if (!before) report.added.push(id);
    else if (before.lastModified !== f.lastModified || before.text !== f.text || JSON.stringify(before.permissions) !== JSON.stringify(f.permissions))
      report.changed.push(id);
  }
  for (const id of previous.files.keys()) if (!files.has(id)) report.removed.push(id);
}

export interface IngestOptions {
  now: () => string;
  concurrency?: number;
}

/** Runs one ingest; on failure the report says why and the previous snapshot is the one to keep. */
export async function ingestGateway(
  reader: GatewayReader,
  previous: CorpusSnapshot,
  options: IngestOptions,
): Promise<{ snapshot?: CorpusSnapshot; report: IngestReport }> {
  const report: IngestReport = {
    source: reader.baseUrl,
    startedAt: options.now(),
    finishedAt: '',
    status: 'succeeded',
    files: 0,
    added: [],
    removed: [],
    changed: [],
    downloaded: [],
    downloadSkipped: [],
    failures: [],
    users: 0,
    groups: 0,
    requests: 0,
    retries: 0,
    waitedMs: 0,
  };
  const before = { ...reader.stats };
  const finish = (): void => {
    report.finishedAt = options.now();
    report.requests = reader.stats.requests - before.requests;
    report.retries = reader.stats.retries - before.retries;
    report.waitedMs = reader.stats.waitedMs - before.waitedMs;
  };
  try {
    const model = (await reader.json(reader.url('/v1/files/permissions/metadata'))).model;
    if (model !== 'resource_permission')
      throw new Error(`the gateway declares the permission model ${JSON.stringify(model)}; only resource_permission is supported`);
    const files = await ingestFiles({ reader, previous, report }, options.concurrency ?? 8);
    const { users, groups } = await ingestDirectory(reader);
    diff(previous, files, report);
    Object.assign(report, { files: files.size, users: users.length, groups: groups.length });
    finish();
    return { snapshot: { files, users, groups, ingestedAt: report.finishedAt, source: reader.baseUrl }, report };
  } catch (error) {
    report.status = 'failed';
    report.error = (error as Error).message;
    finish();
    return { report };
  }
}
