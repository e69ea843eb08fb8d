import type { Profile } from '../conformance-profile';
import type { FileDownload, FileSummary } from '../crawl/crawl-record';
import { fail, warn, type Finding } from '../finding';
import { MIB, outcome, plural, type CheckInput } from './check-input';

export const SUPPORTED_MIME_TYPES: readonly string[] = [
  'text/html',
  'application/pdf',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  'text/plain',
];

/**
 * The platform's per-file cap, "25 MB": larger files are downloaded, then rejected
 * (FILE_SIZE_LIMIT_EXCEEDED). Whether it means 25·10⁶ or 25·2²⁰ bytes is undocumented; the lower
 * bound is used so no rejected file goes unflagged.
 */
export const FILE_SIZE_CAP = 25_000_000;

const isHtml = (f: FileSummary) => typeof f.listing.mimeType === 'string' && f.listing.mimeType.toLowerCase() === 'text/html';
const isBinary = (f: FileSummary) => typeof f.listing.mimeType === 'string' && !isHtml(f);
const isActive = (f: FileSummary) => f.listing.status !== 'deleted';
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})$/i;

function requiredFields(f: FileSummary): Finding[] {
  const l = f.listing;
  const e = (field: string, value?: unknown) => ({ url: l.url, field, value: value === undefined ? `file ${l.id}` : value });
  const out: Finding[] = [];
  const need = (ok: boolean, field: string, message: string, value?: unknown) => {
    if (!ok) out.push(fail('files.required-fields', `File ${l.id}: ${message}`, e(field, value)));
  };
  need(typeof l.name === 'string' && l.name.length > 0, 'name', 'name is missing or empty.', l.name);
  need(
    typeof l.externalUrl === 'string' && l.externalUrl.length > 0,
    'external_url',
    'external_url is missing or empty (users are sent there from a result).',
    l.externalUrl,
  );
  need(
    typeof l.lastModified === 'string' && ISO.test(l.lastModified),
    'last_modified_datetime',
    'last_modified_datetime is missing or not ISO-8601 (the platform caches binaries by it).',
    l.lastModified,
  );
  need(
    l.status === undefined || l.status === null || l.status === 'active' || l.status === 'deleted',
    'status',
    "status must be 'active' or 'deleted'.",
    l.status,
  );
  need(l.keys.includes('content'), 'content', 'content is missing.');
  if (l.keys.includes('content')) need(typeof l.mimeType === 'string', 'content.mime_type', 'content.mime_type is missing.', l.mimeType);
  if (isBinary(f))
    need(
      typeof l.downloadPath === 'string' && l.downloadPath.length > 0,
      'content.download_path',
      `a ${String(l.mimeType)} file needs content.download_path.`,
      l.downloadPath,
    );
  return out;
}

/**
 * What a download shows: its status, checksum, length, size and type. A missing Checksum-SHA256
 * or Content-Length fails under `strict` (our contract requires them); under `platform` it is a
 * warning (the platform's spec documents both without requiring them). A value that disagrees with
 * the bytes fails under both.
 */
type Findings = Record<string, Finding[]>;
/** How a missing header is judged: a failure by the strict profile, a warning by the platform's. */
type Judge = typeof fail;

/** The Checksum-SHA256 header: present, well-formed, and the hash of the bytes that arrived. */
function checksumFindings(id: string, d: FileDownload, out: Findings, absent: Judge): void {
  const checksum = d.checksumSha256;
  if (checksum === undefined)
    out['files.checksum-sha256']?.push(
      absent('files.checksum-sha256', `File ${id}: no Checksum-SHA256 header; the platform cannot detect corruption in transit.`, {
        url: d.url,
        field: 'Checksum-SHA256',
      }),
    );
  else if (!/^[0-9a-f]{64}$/.test(checksum))
    out['files.checksum-sha256']?.push(
      fail('files.checksum-sha256', `File ${id}: Checksum-SHA256 must be 64 lower-case hex characters.`, {
        url: d.url,
        field: 'Checksum-SHA256',
        value: checksum,
      }),
    );
  else if (checksum !== d.sha256)
    out['files.checksum-sha256']?.push(
      fail('files.checksum-sha256', `File ${id}: the downloaded bytes hash to ${d.sha256 ?? '?'}, not the Checksum-SHA256 sent.`, {
        url: d.url,
        field: 'Checksum-SHA256',
        value: checksum,
      }),
    );
}

/** The Content-Length header: present, and the count of the bytes that arrived. */
function contentLengthFindings(id: string, d: FileDownload, out: Findings, absent: Judge): void {
  if (d.contentLength === undefined)
    out['files.content-length']?.push(
      absent('files.content-length', `File ${id}: no Content-Length header (${d.bytes} bytes received).`, { url: d.url, field: 'Content-Length' }),
    );
  else if (Number(d.contentLength) !== d.bytes)
    out['files.content-length']?.push(
      fail('files.content-length', `File ${id}: Content-Length says ${d.contentLength}, ${d.bytes} bytes arrived.`, {
        url: d.url,
        field: 'Content-Length',
        value: d.contentLength,
      }),
    );
}

/** What the listing declares of the content (its size, its SHA-1) against the bytes downloaded. */
function declaredContentFindings(f: FileSummary, d: FileDownload, out: Findings): void {
  const id = f.listing.id;
  const size = f.listing.size;
  if (size === undefined || size === null)
    out['files.size-declared']?.push(
      warn('files.size-declared', `File ${id}: no content.size; the platform cannot skip files over the cap before downloading.`, {
        url: f.listing.url,
        field: 'content.size',
      }),
    );
  else if (size !== d.bytes)
    out['files.size-matches']?.push(
      fail('files.size-matches', `File ${id}: content.size says ${String(size)}, ${d.bytes} bytes downloaded.`, {
        url: f.listing.url,
        field: 'content.size',
        value: size,
      }),
    );

  const sha1 = f.listing.sha1;
  if (sha1 !== undefined && sha1 !== null && (typeof sha1 !== 'string' || sha1.toLowerCase() !== d.sha1)) {
    out['files.sha1-matches']?.push(
      fail('files.sha1-matches', `File ${id}: content.sha1_hash does not match the downloaded bytes (${d.sha1 ?? '?'}).`, {
        url: f.listing.url,
        field: 'content.sha1_hash',
        value: sha1,
      }),
    );
  }
}

/** The download's Content-Type against the listed MIME type (a generic octet-stream is fine). */
function contentTypeFindings(f: FileSummary, d: FileDownload, out: Findings): void {
  const type = (d.contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  const mime = String(f.listing.mimeType).toLowerCase();
  if (type !== mime && type !== 'application/octet-stream') {
    out['files.download-content-type']?.push(
      warn('files.download-content-type', `File ${f.listing.id}: downloaded as '${d.contentType ?? '(none)'}', listed as ${mime}.`, {
        url: d.url,
        field: 'Content-Type',
        value: d.contentType ?? '',
      }),
    );
  }
}

/** What the download of a file shows: it answers 200, its headers are truthful, its bytes match the listing. */
function downloadFindings(f: FileSummary, out: Findings, profile: Profile): void {
  const absent = profile === 'strict' ? fail : warn;
  const d = f.download;
  if (!d) return;
  const id = f.listing.id;
  if (d.status !== 200 || d.error) {
    out['files.download']?.push(
      fail('files.download', `File ${id}: the download answered ${d.status}${d.error ? ` (${d.error})` : ''}.`, {
        url: d.url,
        field: 'status',
        value: d.status,
      }),
    );
    return;
  }
  checksumFindings(id, d, out, absent);
  contentLengthFindings(id, d, out, absent);
  declaredContentFindings(f, d, out);
  contentTypeFindings(f, d, out);
}

type Push = (f: Finding) => void;

/** What the listing alone shows: a supported type, the size cap, a timestamp not in the future. */
function listingFindings(f: FileSummary, push: Push, finishedAt: number): void {
  const l = f.listing;
  requiredFields(f).forEach(push);
  if (typeof l.mimeType === 'string' && !SUPPORTED_MIME_TYPES.includes(l.mimeType.toLowerCase())) {
    push(
      fail('files.supported-mime', `File ${l.id}: ${l.mimeType} is not a type the platform indexes.`, {
        url: l.url,
        field: 'content.mime_type',
        value: l.mimeType,
      }),
    );
  }
  const bytes = typeof l.size === 'number' ? l.size : f.download?.status === 200 ? f.download.bytes : undefined;
  if (bytes !== undefined && bytes > FILE_SIZE_CAP) {
    push(
      warn(
        'files.size-limit',
        `File ${l.id}: ${bytes.toLocaleString('en-US')} bytes (${(bytes / MIB).toFixed(1)} MiB) is over the platform's 25 MB cap; it will be downloaded and then rejected.`,
        { url: l.url, field: 'content.size', value: bytes },
      ),
    );
  }
  if (typeof l.lastModified === 'string' && Date.parse(l.lastModified) > finishedAt + 5 * 60_000) {
    push(
      warn('files.timestamp-plausible', `File ${l.id}: last_modified_datetime is in the future.`, {
        url: l.url,
        field: 'last_modified_datetime',
        value: l.lastModified,
      }),
    );
  }
}

/** `/v1/files/{id}` agrees with the list (id, type, timestamp), and an HTML file has its body there. */
function detailFindings(f: FileSummary, push: Push): void {
  const l = f.listing;
  const d = f.detail;
  if (!d) return;
  if (d.status !== 200) {
    push(fail('files.detail', `File ${l.id}: /v1/files/{id} answered ${d.status}.`, { url: d.url, field: 'status', value: d.status }));
    return;
  }
  if (d.id !== l.id) push(fail('files.detail', `File ${l.id}: /v1/files/{id} returned another id.`, { url: d.url, field: 'value.id', value: d.id }));
  if (d.mimeType !== l.mimeType)
    push(
      fail('files.detail', `File ${l.id}: MIME type ${String(d.mimeType)} on /v1/files/{id}, ${String(l.mimeType)} in the list.`, {
        url: d.url,
        field: 'value.content.mime_type',
        value: d.mimeType,
      }),
    );
  if (typeof d.lastModified === 'string' && typeof l.lastModified === 'string' && Date.parse(d.lastModified) !== Date.parse(l.lastModified)) {
    push(
      fail('files.detail', `File ${l.id}: last_modified_datetime is ${d.lastModified} on /v1/files/{id} but ${l.lastModified} in the list.`, {
        url: d.url,
        field: 'value.last_modified_datetime',
        value: d.lastModified,
      }),
    );
  }
  if (isHtml(f) && !(d.bodyLength && d.bodyLength > 0)) {
    push(
      fail(
        'files.html-body',
        `File ${l.id}: a text/html file without ${d.bodyType && d.bodyType !== 'string' ? 'a string' : 'a non-empty'} content.body on /v1/files/{id}; the platform reads HTML only from there.`,
        { url: d.url, field: 'value.content.body', value: d.bodyType === undefined ? '(absent)' : d.bodyLength === 0 ? '(empty)' : `(${d.bodyType})` },
      ),
    );
  }
}

/** last_modified_datetime must not move between two crawls with nothing changed. */
function timestampStability(input: CheckInput, push: Push): void {
  if (!input.second) return;
  const later = new Map(input.second.files.files);
  const windowStart = Date.parse(input.crawl.startedAt) - 5000;
  const windowEnd = Date.parse(input.second.files.finishedAt) + 5000;
  for (const f of input.crawl.files) {
    const before = f.listing.lastModified;
    const after = later.get(f.listing.id);
    if (typeof before !== 'string' || after === undefined || after === null || Date.parse(before) === Date.parse(after)) continue;
    const now = [before, after].every((t) => Date.parse(t) >= windowStart && Date.parse(t) <= windowEnd);
    push(
      fail(
        'files.timestamp-stable',
        `File ${f.listing.id}: last_modified_datetime moved from ${before} to ${after} between two crawls with nothing changed${now ? ' — it looks like the current time, so the platform re-downloads every binary on every sync' : ''}.`,
        { url: f.listing.url, field: 'last_modified_datetime', value: after },
      ),
    );
  }
}

const FILE_CHECK_IDS = [
  'files.required-fields',
  'files.supported-mime',
  'files.detail',
  'files.html-body',
  'files.download',
  'files.checksum-sha256',
  'files.content-length',
  'files.size-matches',
  'files.size-declared',
  'files.sha1-matches',
  'files.download-content-type',
  'files.size-limit',
  'files.timestamp-stable',
  'files.timestamp-plausible',
];

/** What each check says when it finds nothing, given how many files of each kind there were. */
function passMessages(n: { files: number; active: number; html: number; binaries: number }, secondCrawl: boolean): Record<string, string> {
  const noBinaries = 'no binaries (nothing to check)';
  return {
    'files.required-fields': `all ${plural(n.files, 'file')} carry the required fields for their type`,
    'files.supported-mime': 'every MIME type is supported',
    'files.detail': `/v1/files/{id} agrees with the list for ${plural(n.active, 'active file')}`,
    'files.html-body': n.html ? `${plural(n.html, 'HTML file')} have a body on /v1/files/{id}` : 'no HTML files (nothing to check)',
    'files.download': n.binaries ? `${plural(n.binaries, 'binary', 'binaries')} downloaded` : noBinaries,
    'files.checksum-sha256': n.binaries ? 'every download matches its Checksum-SHA256' : noBinaries,
    'files.content-length': n.binaries ? 'every download matches its Content-Length' : noBinaries,
    'files.size-matches': n.binaries ? 'every download matches content.size' : noBinaries,
    'files.size-declared': n.binaries ? 'every binary declares content.size' : noBinaries,
    'files.sha1-matches': 'every content.sha1_hash given matches',
    'files.download-content-type': 'downloads carry their MIME type',
    'files.size-limit': 'no file is over 25 MB',
    'files.timestamp-stable': secondCrawl ? 'last_modified_datetime is the same in two consecutive crawls' : 'not checked (no second crawl)',
    'files.timestamp-plausible': 'no timestamp is in the future',
  };
}

/** List items carrying content.body: wasted payload, since the platform reads HTML only from the detail. */
function htmlBodyInList(files: FileSummary[]): Finding[] {
  const inList = files.filter((f) => f.listing.listBodyLength !== undefined);
  return outcome(
    'files.html-body-in-list',
    inList.length
      ? [
          warn(
            'files.html-body-in-list',
            `${plural(inList.length, 'list item')} carry content.body; the platform reads HTML only from /v1/files/{id}, so this is wasted payload.`,
            { url: inList[0]?.listing.url, field: 'content.body', value: inList[0]?.listing.id },
          ),
        ]
      : [],
    'list pages leave HTML bodies out',
  );
}

/**
 * Active files whose external_url is a string but not an http(s) URL (a `file://` path a
 * filesystem source serves without a base URL): a result links there, and nobody can open it.
 */
function externalUrlOpenable(files: FileSummary[]): Finding[] {
  const closed = files.filter(
    (f) => isActive(f) && typeof f.listing.externalUrl === 'string' && f.listing.externalUrl !== '' && !/^https?:\/\//i.test(f.listing.externalUrl),
  );
  const first = closed[0]?.listing;
  const scheme = typeof first?.externalUrl === 'string' ? (/^([a-z][a-z0-9+.-]*:)/i.exec(first.externalUrl)?.[1]?.toLowerCase() ?? '') : '';
  return outcome(
    'files.external-url-openable',
    first
      ? [
          warn(
            'files.external-url-openable',
            `${plural(closed.length, 'file')} have a ${scheme ? `${scheme}//` : 'non-http(s)'} external_url, which people cannot open from a result: serve where the files are browsable (the filesystem adapter: set FILESYSTEM_BASE_URL).`,
            { url: first.url, field: 'external_url', value: first.externalUrl },
          ),
        ]
      : [],
    'every external_url is an http(s) URL',
  );
}

/** Files: fields per MIME type, detail, inline HTML, downloads byte for byte, size cap, timestamps. */
export function fileChecks(input: CheckInput): Finding[] {
  const files = input.crawl.files;
  const active = files.filter(isActive);
  const out: Record<string, Finding[]> = Object.fromEntries(FILE_CHECK_IDS.map((id) => [id, []]));
  const push = (f: Finding) => out[f.check]?.push(f);
  const finishedAt = Date.parse(input.second?.files.finishedAt ?? input.crawl.finishedAt);
  for (const f of files) {
    listingFindings(f, push, finishedAt);
    if (!isActive(f)) continue;
    detailFindings(f, push);
    downloadFindings(f, out, input.profile);
  }
  timestampStability(input, push);

  const binaries = active.filter((f) => f.download);
  const html = active.filter(isHtml);
  const results: Finding[] = [];
  if (files.length === 0)
    results.push(warn('files.listed', 'The gateway lists no files.', { url: input.crawl.listings.find((l) => l.collection === 'files')?.firstUrl }));
  else
    results.push(
      ...outcome(
        'files.listed',
        [],
        `${plural(files.length, 'file')} listed (${plural(active.length, 'active file')}, ${html.length} HTML, ${binaries.length} binaries)`,
      ),
    );
  const passes = passMessages({ files: files.length, active: active.length, html: html.length, binaries: binaries.length }, Boolean(input.second));
  for (const id of FILE_CHECK_IDS) results.push(...outcome(id, out[id] ?? [], passes[id] ?? 'ok'));
  results.push(...htmlBodyInList(files), ...externalUrlOpenable(files));
  return results;
}
