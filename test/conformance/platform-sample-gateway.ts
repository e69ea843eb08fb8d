import crypto from 'node:crypto';
import type http from 'node:http';
import { listenOnLoopback } from '../../src/lib/listen-on-loopback';

/**
 * A gateway written "the platform's way", for testing the conformance harness: it reproduces on
 * the wire what the platform's published starter server does (repository moveworks/gateway,
 * `starter-code/content_gateway.py`, newest revision 8af2261d; `revision: 'older'` gives
 * 18e87f4f), written here from its observable behaviour, with a dataset of our own. See
 * platform-sample-gateway.md for each behaviour and the line it comes from.
 *
 * Deliberate defects, reproduced because the harness must report them (`defects: false` or
 * `defects: {<name>: false}` turns them off, leaving a defect-free platform-shaped gateway):
 * - `size-mismatch`: binaries declare a realistic `content.size` but download a short placeholder
 *   body (`[Demo] Binary content for: <name>`), as the sample's demo mode does.
 * - `zero-top-loop`: `$top=0` answers an empty page whose `@odata.nextLink` is the same URL
 *   (skip + 0 = skip, and "has more" stays true): following nextLinks never ends.
 * - `negative-slice`: paging is Python slicing `items[skip:skip+top]`, so `$top=-1` drops the last
 *   item of the first page, then links to `$skip=-1`, `-2`, ... empty pages forever; a negative
 *   `$skip` counts from the end.
 * Off, a `$top` below 1 means the default page size and a negative `$skip` means 0 — as the sample
 * already treats a `$top` that is not an integer.
 */
export const SAMPLE_DEFECTS = ['size-mismatch', 'zero-top-loop', 'negative-slice'] as const;
export type SampleDefect = (typeof SAMPLE_DEFECTS)[number];
export type SampleEndpoint = 'files' | 'file' | 'download' | 'permissions' | 'users' | 'groups' | 'members';

export interface PlatformSampleGatewayOptions {
  /** The gateway key; '' turns auth off, as the sample does when GATEWAY_API_KEY is unset. Default: random 64 hex. */
  key?: string;
  /** All defects on (default), all off, or one by one. */
  defects?: boolean | Partial<Record<SampleDefect, boolean>>;
  /** 'newest' (8af2261d, default); 'older' (18e87f4f): static rate-limit headers 600/599/60, HTML bodies in list pages. */
  revision?: 'newest' | 'older';
  /** Make one endpoint's source call fail: as an HTTP error (→ 502 EXTERNAL_REST_ERROR, default) or unreachable (→ 500). */
  failSource?: SampleEndpoint | { endpoint: SampleEndpoint; as: 'http-error' | 'unreachable' };
  /** Extra generated HTML articles after the base set (kb-009, ...), to page past the default $top of 50. */
  extraFiles?: number;
  /**
   * What the platform's spec allows and other gateways written from it send (default on): files
   * with `metadata_url` and `children_url` and one without `status`, an upper-case `sha1_hash`,
   * `permissions_hierarchy`, a user without `state` and with a date-only date, identity lists
   * without `@odata.context`, an extra field inside `error`. `false` gives the sample's own shape.
   */
  specExtras?: boolean;
}

export interface PlatformSampleGateway {
  url: string;
  key: string;
  files: readonly SampleFile[];
  close(): Promise<void>;
}

type Principal = { type: 'USER' | 'GROUP'; id: string; action: 'VIEW' };
export interface SampleFile {
  id: string;
  name: string;
  mime: string;
  modified: string;
  created: string;
  author: string;
  /** What the source claims; the placeholder download is another length (the size-mismatch defect). */
  declaredSize?: number;
  html?: string;
  permissions: Principal[];
}

const PDF = 'application/pdf';
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const HTML = 'text/html';
const view = (type: 'USER' | 'GROUP', id: string): Principal => ({ type, id, action: 'VIEW' });
const WILDCARD = view('GROUP', '*');
const grp = (id: string) => view('GROUP', id);

const article = (id: string, name: string, day: number, permissions: Principal[]): SampleFile => ({
  id,
  name,
  mime: HTML,
  modified: `2025-03-${String(day).padStart(2, '0')}T09:30:00Z`,
  created: '2024-11-04T08:00:00Z',
  author: 'ada.lind@wiki.example.internal',
  html: `<h1>${name}</h1><p>${name}: the team's notes.</p>`,
  permissions,
});
const binary = (id: string, name: string, mime: string, day: number, declaredSize: number, permissions: Principal[]): SampleFile => ({
  id,
  name,
  mime,
  modified: `2025-04-${String(day).padStart(2, '0')}T14:00:00Z`,
  created: '2025-01-20T10:15:00Z',
  author: 'dara.kim@wiki.example.internal',
  declaredSize,
  permissions,
});

/** Our own corpus in the sample's shape: raw URL-safe ids, HTML inline, binaries by download. */
export const SAMPLE_FILES: readonly SampleFile[] = [
  article('kb-001', 'Getting started with the wiki', 2, [WILDCARD]),
  binary('kb-002', 'Travel expense policy', PDF, 1, 245_760, [grp('group-everyone')]),
  article('kb-003', 'On-call handbook', 5, [grp('group-engineering')]),
  binary('kb-004', 'Release checklist', 'text/plain', 3, 4096, [grp('group-platform')]),
  article('kb-005', 'Quarterly budget notes', 9, [grp('group-finance')]),
  binary('kb-006', 'Architecture decision records', DOCX, 7, 98_304, [grp('group-engineering'), view('USER', 'user-004')]),
  article('kb-007', 'Office locations', 11, [WILDCARD]),
  binary('kb-008', 'Board update', PDF, 9, 1_048_576, [view('USER', 'user-004')]),
];

export const SAMPLE_USERS = [
  { id: 'user-001', email: 'ada.lind@wiki.example.internal', name: 'Ada Lind', active: true },
  { id: 'user-002', email: 'bo.okafor@wiki.example.internal', name: 'Bo Okafor', active: true },
  { id: 'user-003', email: 'chen.wu@wiki.example.internal', name: 'Chen Wu', active: true },
  { id: 'user-004', email: 'dara.kim@wiki.example.internal', name: 'Dara Kim', active: true },
  { id: 'user-005', email: 'eli.moreau@wiki.example.internal', name: 'Eli Moreau', active: false },
] as const;

/** Direct members only: everyone ⊃ engineering ⊃ platform, everyone ⊃ finance. */
export const SAMPLE_GROUPS: ReadonlyArray<{ id: string; name: string; members: ReadonlyArray<{ type: 'USER' | 'GROUP'; id: string; name: string }> }> = [
  {
    id: 'group-everyone',
    name: 'Everyone',
    members: [
      { type: 'GROUP', id: 'group-engineering', name: 'Engineering' },
      { type: 'GROUP', id: 'group-finance', name: 'Finance' },
    ],
  },
  {
    id: 'group-engineering',
    name: 'Engineering',
    members: [
      { type: 'GROUP', id: 'group-platform', name: 'Platform' },
      { type: 'USER', id: 'user-002', name: 'Bo Okafor' },
    ],
  },
  {
    id: 'group-platform',
    name: 'Platform',
    members: [
      { type: 'USER', id: 'user-001', name: 'Ada Lind' },
      { type: 'USER', id: 'user-003', name: 'Chen Wu' },
    ],
  },
  {
    id: 'group-finance',
    name: 'Finance',
    members: [
      { type: 'USER', id: 'user-004', name: 'Dara Kim' },
      { type: 'USER', id: 'user-005', name: 'Eli Moreau' },
    ],
  },
];
/** The base set, then `extra` generated HTML articles kb-009, kb-010, ... open to group-everyone. */
const corpus = (extra: number): SampleFile[] => [
  ...SAMPLE_FILES,
  ...Array.from({ length: extra }, (_, i) =>
    article(`kb-${String(SAMPLE_FILES.length + i + 1).padStart(3, '0')}`, `Generated article ${i + 1}`, 1 + (i % 28), [grp('group-everyone')]),
  ),
];
const IDENTITY_DATE = '2025-01-01T00:00:00Z'; // users and groups: the source's string, passed through

const DEFAULT_TOP = 50n;
const SOURCE = 'https://source.example.internal/api';
const FLASK_404 = '404 Not Found: The requested URL was not found on the server. If you entered the URL manually please check your spelling and try again.';
const FLASK_500 =
  '500 Internal Server Error: The server encountered an internal error and was unable to complete your request. Either the server is overloaded or there is an error in the application.';
const FLASK_405_PAGE =
  '<!doctype html>\n<html lang=en>\n<title>405 Method Not Allowed</title>\n<h1>Method Not Allowed</h1>\n<p>The method is not allowed for the requested URL.</p>\n';

/** The demo download body: a placeholder naming the file, whatever its type or declared size. */
export const placeholderBytes = (f: SampleFile): Buffer => Buffer.from(`[Demo] Binary content for: ${f.name}`);

/** Flask's jsonify: keys sorted, compact, non-ASCII escaped, a trailing newline. */
function jsonify(value: unknown): string {
  const sorted = (v: unknown): unknown =>
    Array.isArray(v)
      ? v.map(sorted)
      : v && typeof v === 'object'
        ? Object.fromEntries(
            Object.keys(v)
              .sort()
              .map((k) => [k, sorted((v as Record<string, unknown>)[k])]),
          )
        : v;
  return `${JSON.stringify(sorted(value)).replace(/[\u0080-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)}\n`;
}

/** Werkzeug's `args.get(name, default, type=int)`: Python int() or the default. */
function pyInt(raw: string | null, fallback: bigint): bigint {
  if (raw === null || !/^\s*[+-]?\d+(?:_\d+)*\s*$/.test(raw)) return fallback;
  return BigInt(raw.trim().replace(/_/g, '').replace(/^\+/, ''));
}
const toIndex = (b: bigint): number => Number(b > 1n << 50n ? 1n << 50n : b < -(1n << 50n) ? -(1n << 50n) : b);

/** The WSGI server's path: percent-decoded bytes as UTF-8 (invalid escapes left as they are). */
function decodePath(raw: string): string {
  const bytes: number[] = [];
  for (let i = 0; i < raw.length; i++) {
    const hex = raw.slice(i + 1, i + 3);
    if (raw[i] === '%' && /^[0-9a-fA-F]{2}$/.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else bytes.push(...Buffer.from(raw[i] ?? ''));
  }
  return Buffer.from(bytes).toString('utf8');
}

export function createPlatformSampleHandler(options: PlatformSampleGatewayOptions & { key: string }): http.RequestListener {
  const on = (d: SampleDefect) => (typeof options.defects === 'object' ? options.defects[d] !== false : options.defects !== false);
  const older = options.revision === 'older';
  const failure = typeof options.failSource === 'string' ? { endpoint: options.failSource, as: 'http-error' as const } : options.failSource;
  const files = corpus(options.extraFiles ?? 0);
  const byId = new Map(files.map((f) => [f.id, f]));

  class SourceFailure extends Error {}
  /** Where the sample calls its source; a configured failure raises there, as requests would. */
  const source = <T>(endpoint: SampleEndpoint, url: string, read: () => T): T => {
    if (failure?.endpoint !== endpoint) return read();
    if (failure.as === 'unreachable') throw new Error(`HTTPSConnectionPool: Max retries exceeded with url: ${url}`);
    throw new SourceFailure(`503 Server Error: Service Unavailable for url: ${SOURCE}${url}`);
  };

  const extras = options.specExtras !== false;
  const node = (f: SampleFile, withBody: boolean) => {
    const content: Record<string, unknown> = {
      mime_type: f.mime,
      size: f.mime === HTML ? null : on('size-mismatch') ? f.declaredSize : placeholderBytes(f).length,
    };
    if (f.mime === HTML) {
      if (withBody) content.body = f.html ?? '';
    } else {
      const upperSha1 = extras && f.id === 'kb-006' ? crypto.createHash('sha1').update(placeholderBytes(f)).digest('hex').toUpperCase() : null;
      Object.assign(content, { download_path: `/${f.id}/download`, sha1_hash: upperSha1 });
    }
    const out: Record<string, unknown> = {
      id: f.id,
      name: f.name,
      external_url: `https://wiki.example.internal/pages/${f.id}`,
      last_modified_datetime: f.modified,
      status: 'active',
      created_datetime: f.created,
      created_by: f.author,
      last_modified_by: f.author,
      content,
      custom_attributes: {},
    };
    if (extras)
      Object.assign(out, {
        metadata_url: `https://wiki.example.internal/api/pages/${f.id}`,
        children_url: `https://wiki.example.internal/api/pages?$filter=(parent eq ${f.id})`,
      });
    if (extras && f.id === 'kb-003') delete out.status;
    return out;
  };

  return (req, res) => {
    const method = req.method ?? 'GET';
    const send = (status: number, body: string | Buffer, type: string, extra: Record<string, string> = {}) => {
      const headers: Record<string, string | number> = { 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), ...extra };
      if (older) Object.assign(headers, { 'X-RateLimit-Limit': '600', 'X-RateLimit-Remaining': '599', 'X-RateLimit-Reset': '60' });
      res.writeHead(status, headers);
      res.end(method === 'HEAD' ? undefined : body);
    };
    const json = (status: number, body: unknown) => send(status, jsonify(body), 'application/json');
    const error = (status: number, code: string, message: string) => json(status, { error: { code, message, ...(extras ? { target: req.url ?? '' } : {}) } });

    // before_request: auth runs before routing, so unknown routes without a key are 401 too.
    if (options.key !== '') {
      const token = (req.headers.authorization ?? '').replace(/^Bearer /, '').trim();
      if (!token || token !== options.key) return error(401, 'AUTHENTICATION_FAILED', 'Bearer token missing or invalid.');
    }

    const target = req.url ?? '/';
    const q = target.indexOf('?');
    const path = decodePath(q < 0 ? target : target.slice(0, q));
    const params = new URLSearchParams(q < 0 ? '' : target.slice(q + 1));
    const root = `http://${req.headers.host ?? '127.0.0.1'}`;
    const context = (set: string) => `${root}/$metadata#${set}`;

    const seg = path.split('/');
    let route: (() => void) | undefined;
    /** `$top`/`$skip` → one page by Python slicing, a nextLink when "has more" (skip + len(page) < total). */
    const paged =
      <T>(endpoint: SampleEndpoint, sourcePath: string, base: string, set: string, all: () => readonly T[], wrap: (page: T[]) => unknown) =>
      () => {
        let top = pyInt(params.get('$top'), DEFAULT_TOP);
        let skip = pyInt(params.get('$skip'), 0n);
        if (top === 0n && !on('zero-top-loop')) top = DEFAULT_TOP;
        if (!on('negative-slice')) [top, skip] = [top < 0n ? DEFAULT_TOP : top, skip < 0n ? 0n : skip];
        let items: readonly T[];
        try {
          items = source(endpoint, `${sourcePath}?offset=${skip}&limit=${top}`, all);
        } catch (e) {
          if (e instanceof SourceFailure) return error(502, 'EXTERNAL_REST_ERROR', e.message);
          throw e;
        }
        const page = items.slice(toIndex(skip), toIndex(skip + top)); // JS slice clamps negatives exactly as Python does
        const body: Record<string, unknown> =
          extras && set !== 'Content' && set !== 'Permissions' ? { value: wrap(page) } : { '@odata.context': context(set), value: wrap(page) };
        if (skip + BigInt(page.length) < BigInt(items.length)) body['@odata.nextLink'] = `${root}${base}?$top=${top}&$skip=${skip + top}`;
        json(200, body);
      };
    const one = (endpoint: SampleEndpoint, id: string, suffix: string, answer: (f: SampleFile) => void) => () => {
      let f: SampleFile | undefined;
      try {
        f = source(endpoint, `/documents/${id}${suffix}`, () => byId.get(id));
      } catch (e) {
        if (e instanceof SourceFailure) return error(502, 'EXTERNAL_REST_ERROR', e.message);
        throw e;
      }
      if (!f) return error(404, 'NOT_FOUND', `File ${id} not found.`);
      answer(f);
    };

    if (seg[0] === '' && seg[1] === 'v1' && seg.length >= 3) {
      const [, , a, b, c] = seg;
      const n = seg.length;
      if (n === 3 && a === 'files')
        route = paged(
          'files',
          '/documents',
          '/v1/files',
          'Content',
          () => files,
          (p) => p.map((f) => node(f, older)),
        );
      else if (n === 3 && a === 'users')
        route = paged(
          'users',
          '/users',
          '/v1/users',
          'Users',
          () => SAMPLE_USERS,
          (p) =>
            p.map((u) =>
              extras && u.id === 'user-003'
                ? { id: u.id, primary_email_addr: u.email, full_name: u.name, last_modified_datetime: '2025-01-01' }
                : { id: u.id, primary_email_addr: u.email, full_name: u.name, state: u.active ? 'Active' : 'Inactive', last_modified_datetime: IDENTITY_DATE },
            ),
        );
      else if (n === 3 && a === 'groups')
        route = paged(
          'groups',
          '/groups',
          '/v1/groups',
          'Groups',
          () => SAMPLE_GROUPS,
          (p) => p.map((g) => ({ id: g.id, name: g.name, last_modified_datetime: IDENTITY_DATE })),
        );
      else if (n === 5 && a === 'files' && b === 'permissions' && c === 'metadata')
        route = () => json(200, { '@odata.context': context('PermissionsMetadata'), model: 'resource_permission' });
      else if (n === 4 && a === 'files' && b) route = one('file', b, '', (f) => json(200, { '@odata.context': context('Content'), value: node(f, true) }));
      else if (n === 5 && a === 'files' && b && c === 'download')
        // Any known id downloads, HTML included: the placeholder, with the file's type and no ETag, Last-Modified or Content-Disposition.
        route = one('download', b, '/download', (f) => {
          const bytes = placeholderBytes(f);
          send(200, bytes, f.mime, { 'Checksum-SHA256': crypto.createHash('sha256').update(bytes).digest('hex') });
        });
      // Unknown files are not 404 here: the sample's lookup defaults to the public wildcard.
      else if (n === 5 && a === 'files' && b && c === 'permissions')
        route = paged(
          'permissions',
          `/documents/${b}/permissions`,
          `/v1/files/${b}/permissions`,
          'Permissions',
          () => byId.get(b)?.permissions ?? [WILDCARD],
          (p) => ({ permissions: p, last_modified_datetime: null, ...(extras ? { permissions_hierarchy: [] } : {}) }),
        );
      // Unknown groups are 200 with no members (a dict lookup defaulting to []).
      else if (n === 5 && a === 'groups' && b && c === 'members')
        route = paged(
          'members',
          `/groups/${b}/members`,
          `/v1/groups/${b}/members`,
          'GroupMembers',
          () => SAMPLE_GROUPS.find((g) => g.id === b)?.members ?? [],
          (p) => p,
        );
    }

    if (!route) return error(404, 'NOT_FOUND', FLASK_404);
    if (method === 'OPTIONS') return send(200, '', 'text/html; charset=utf-8', { Allow: 'GET, HEAD, OPTIONS' });
    if (method !== 'GET' && method !== 'HEAD') return send(405, FLASK_405_PAGE, 'text/html; charset=utf-8', { Allow: 'GET, HEAD, OPTIONS' });
    try {
      route();
    } catch {
      error(500, 'INTERNAL_SERVER_ERROR', FLASK_500);
    }
  };
}

/** Starts the fixture on 127.0.0.1, port 0. */
export async function startPlatformSampleGateway(options: PlatformSampleGatewayOptions = {}): Promise<PlatformSampleGateway> {
  const key = options.key ?? crypto.randomBytes(32).toString('hex');
  const server = await listenOnLoopback(createPlatformSampleHandler({ ...options, key }));
  const files = corpus(options.extraFiles ?? 0);
  return { url: server.url, key, files, close: () => server.close() };
}
