import crypto from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import { listenOnLoopback } from '../../src/lib/listen-on-loopback';

/**
 * A small, independent gateway for testing the conformance harness: the eight endpoints over an
 * in-memory dataset, written from the contract (not from our gateway's code), with a switch that
 * plants one class of defect at a time. With no defect it is meant to pass clean.
 */
export const DEFECTS = [
  'flattened-members',
  'user-wildcard',
  'missing-emails',
  'duplicate-ids',
  'wrong-checksum',
  'bad-top-500',
  'html-body-missing',
  'static-rate-limit',
  'always-now-timestamp',
] as const;
export type Defect = (typeof DEFECTS)[number];

export const BROKEN_GATEWAY_KEY = 'broken-gateway-key-0123456789';

type Principal = { type: 'USER' | 'GROUP'; id: string };
interface DataFile {
  id: string;
  name: string;
  mime: string;
  modified: string;
  body?: string;
  bytes?: Buffer;
  permissions: Principal[];
}
interface DataUser {
  id: string;
  email: string;
  name: string;
  state: 'Active' | 'Inactive';
}

const PDF = 'application/pdf';
const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
const PPTX = 'application/vnd.openxmlformats-officedocument.presentationml.presentation';
const TXT = 'text/plain';
const EVERYONE: Principal = { type: 'GROUP', id: '*' };
const G = (id: string): Principal => ({ type: 'GROUP', id });
const U = (id: string): Principal => ({ type: 'USER', id });

/** ana, ben, cai in engineering (all ⊃ eng ⊃ plat); dot and eve in hr; eve inactive. */
export const USERS: readonly DataUser[] = [
  { id: 'u-ana', email: 'ana@corp.example', name: 'Ana', state: 'Active' },
  { id: 'u-ben', email: 'ben@corp.example', name: 'Ben', state: 'Active' },
  { id: 'u-cai', email: 'cai@corp.example', name: 'Cai', state: 'Active' },
  { id: 'u-dot', email: 'dot@corp.example', name: 'Dot', state: 'Active' },
  { id: 'u-eve', email: 'eve@corp.example', name: 'Eve', state: 'Inactive' },
];

export const GROUPS: ReadonlyArray<{ id: string; name: string; members: Principal[] }> = [
  { id: 'g-all', name: 'Everyone at Corp', members: [G('g-eng'), U('u-dot')] },
  { id: 'g-eng', name: 'Engineering', members: [G('g-plat'), U('u-ben')] },
  { id: 'g-hr', name: 'HR', members: [U('u-dot'), U('u-eve')] },
  { id: 'g-plat', name: 'Platform', members: [U('u-ana'), U('u-cai')] },
];

function file(id: string, mime: string, permissions: Principal[], i: number): DataFile {
  const f: DataFile = { id, name: `Document ${id}`, mime, modified: new Date(Date.UTC(2025, 0, 1 + i)).toISOString(), permissions };
  if (mime === 'text/html') f.body = `<h1>${id}</h1><p>Article ${id}.</p>`;
  else
    f.bytes = crypto
      .createHash('sha512')
      .update(id)
      .digest()
      .subarray(0, 40 + i * 7);
  return f;
}

export const FILES: readonly DataFile[] = [
  file('kb-1', 'text/html', [EVERYONE], 1),
  file('kb-2', 'text/html', [G('g-eng')], 2),
  file('kb-3', 'text/html', [U('u-ana')], 3),
  file('kb-4', 'text/html', [G('g-hr')], 4),
  file('kb-5', 'text/html', [G('g-all')], 5),
  file('kb-6', 'text/html', [G('g-plat')], 6),
  file('kb-7', 'text/html', [EVERYONE], 7),
  file('kb-8', 'text/html', [G('g-eng'), U('u-dot')], 8),
  file('doc-1.pdf', PDF, [G('g-all')], 9),
  file('doc-2.docx', DOCX, [G('g-hr')], 10),
  file('doc-3.pptx', PPTX, [U('u-ben')], 11),
  file('doc-4.txt', TXT, [EVERYONE], 12),
];

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

const sha256 = (b: Buffer | string) => crypto.createHash('sha256').update(b).digest('hex');
const sha1 = (b: Buffer) => crypto.createHash('sha1').update(b).digest('hex');

export function createBrokenGateway(defect?: Defect): express.Express {
  const secret = crypto.randomBytes(16);
  const has = (d: Defect) => defect === d;
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  // Rate-limit headers: a real, moving budget — or the static placeholder some starters ship.
  let remaining = 100_000;
  app.use((_req, res, next) => {
    if (has('static-rate-limit')) res.set({ 'X-RateLimit-Limit': '600', 'X-RateLimit-Remaining': '599', 'X-RateLimit-Reset': '60' });
    else res.set({ 'X-RateLimit-Limit': '100000', 'X-RateLimit-Remaining': String(Math.max(0, --remaining)), 'X-RateLimit-Reset': '3600' });
    next();
  });
  app.use('/v1', (req, _res, next) => {
    const header = req.headers.authorization ?? '';
    const presented = header.replace(/^Bearer\s+/i, '');
    next(presented === BROKEN_GATEWAY_KEY ? undefined : new HttpError(401, 'AUTHENTICATION_FAILED', 'Bearer token missing or invalid.'));
  });

  const base = (req: Request) => `${req.protocol}://${req.get('host') ?? 'localhost'}`;
  const modified = (f: DataFile) => (has('always-now-timestamp') ? new Date().toISOString() : f.modified);
  const sign = (payload: string) => crypto.createHmac('sha256', secret).update(payload).digest('base64url');

  /** Offset paging with HMAC-signed `$skiptoken`s bound to the collection. */
  function page<T>(req: Request, res: Response, scope: string, set: string, items: readonly T[], wrap: (page: T[]) => unknown): void {
    const q = req.query as Record<string, string | undefined>;
    let top = 5;
    if (q.$top !== undefined) {
      if (!/^\d+$/.test(q.$top) || Number(q.$top) < 1) {
        if (has('bad-top-500')) throw new HttpError(500, 'INTERNAL_SERVER_ERROR', 'Unexpected error.');
        throw new HttpError(400, 'INPUT_VALIDATION_FAILED', '$top must be a whole number of at least 1.');
      }
      top = Math.min(Number(q.$top), 50);
    }
    let offset = 0;
    if (q.$skiptoken !== undefined) {
      const [payload = '', mac = ''] = q.$skiptoken.split('.');
      const expected = sign(payload);
      if (mac.length !== expected.length || !crypto.timingSafeEqual(Buffer.from(mac), Buffer.from(expected)))
        throw new HttpError(400, 'INPUT_VALIDATION_FAILED', 'Invalid $skiptoken.');
      const token = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { o: number; s: string; t: number };
      if (token.s !== scope) throw new HttpError(400, 'INPUT_VALIDATION_FAILED', '$skiptoken belongs to another collection.');
      offset = token.o;
      top = token.t;
    } else if (q.$skip !== undefined) {
      if (!/^\d+$/.test(q.$skip)) throw new HttpError(400, 'INPUT_VALIDATION_FAILED', '$skip must be a whole number.');
      offset = Number(q.$skip);
    }
    const slice = items.slice(offset, offset + top);
    const body: Record<string, unknown> = { '@odata.context': `${base(req)}/v1/$metadata#${set}`, value: wrap(slice) };
    if (offset + top < items.length) {
      // The duplicate-ids defect re-serves the last item of each page at the top of the next one.
      const next = has('duplicate-ids') && scope === 'files' ? offset + top - 1 : offset + top;
      const payload = Buffer.from(JSON.stringify({ o: next, s: scope, t: top })).toString('base64url');
      body['@odata.nextLink'] = `${base(req)}${req.originalUrl.split('?')[0] ?? ''}?$skiptoken=${payload}.${sign(payload)}`;
    }
    res.json(body);
  }

  const fileResource = (f: DataFile, withBody: boolean) => {
    const content: Record<string, unknown> = { mime_type: f.mime };
    if (f.bytes) Object.assign(content, { download_path: `/${encodeURIComponent(f.id)}/download`, size: f.bytes.length, sha1_hash: sha1(f.bytes) });
    else if (withBody && !has('html-body-missing')) content.body = f.body;
    return {
      id: f.id,
      name: f.name,
      external_url: `https://intranet.corp.example/${encodeURIComponent(f.id)}`,
      last_modified_datetime: modified(f),
      status: 'active',
      content,
    };
  };
  const findFile = (id: string): DataFile => {
    if (id.length > 1024) throw new HttpError(400, 'INPUT_VALIDATION_FAILED', 'The id is too long.');
    const f = FILES.find((x) => x.id === id);
    if (!f) throw new HttpError(404, 'NOT_FOUND', `File ${JSON.stringify(id)} not found.`);
    return f;
  };
  const permissionsOf = (f: DataFile): Principal[] =>
    has('user-wildcard') ? f.permissions.map((p) => (p.id === '*' ? { type: 'USER', id: '*' } : p)) : f.permissions;
  const membersOf = (groupId: string): Principal[] => {
    const direct = GROUPS.find((g) => g.id === groupId)?.members ?? [];
    if (!has('flattened-members')) return direct;
    // Flattened: every nested member, recursively, besides the direct ones.
    const out: Principal[] = [];
    const seen = new Set<string>();
    const walk = (list: readonly Principal[]) => {
      for (const m of list) {
        const key = `${m.type} ${m.id}`;
        if (seen.has(key)) continue;
        seen.add(key);
        out.push(m);
        if (m.type === 'GROUP') walk(GROUPS.find((g) => g.id === m.id)?.members ?? []);
      }
    };
    walk(direct);
    return out;
  };

  app.get('/v1/files', (req, res) => page(req, res, 'files', 'Content', FILES, (list) => list.map((f) => fileResource(f, false))));
  app.get('/v1/files/permissions/metadata', (req, res) => {
    res.json({ '@odata.context': `${base(req)}/v1/$metadata#PermissionsMetadata`, model: 'resource_permission' });
  });
  app.get('/v1/files/:id', (req, res) => {
    res.json({ '@odata.context': `${base(req)}/v1/$metadata#Content`, value: fileResource(findFile(req.params.id), true) });
  });
  app.get('/v1/files/:id/download', (req, res) => {
    const f = findFile(req.params.id);
    if (!f.bytes) throw new HttpError(404, 'NOT_FOUND', 'HTML files have no download; read content.body.');
    const checksum = has('wrong-checksum') ? sha256(`not ${f.id}`) : sha256(f.bytes);
    res.set({
      'Content-Type': f.mime,
      'Content-Length': String(f.bytes.length),
      'Checksum-SHA256': checksum,
      ETag: `"${sha256(f.bytes)}"`,
      'Last-Modified': new Date(f.modified).toUTCString(),
      'Accept-Ranges': 'bytes',
      'Content-Disposition': `attachment; filename="${f.id.replace(/[^\w.-]/g, '_')}"`,
    });
    res.end(f.bytes);
  });
  app.get('/v1/files/:id/permissions', (req, res) => {
    const f = findFile(req.params.id);
    page(req, res, `permissions:${f.id}`, 'Permissions', permissionsOf(f), (list) => ({
      permissions: list.map((p) => ({ ...p, action: 'VIEW' })),
      last_modified_datetime: f.modified,
    }));
  });
  app.get('/v1/users', (req, res) =>
    page(req, res, 'users', 'Users', USERS, (list) =>
      list.map((u) => {
        const missing = has('missing-emails') && (u.id === 'u-ben' || u.id === 'u-cai');
        return { id: u.id, ...(missing ? {} : { primary_email_addr: u.email }), full_name: u.name, state: u.state };
      }),
    ),
  );
  app.get('/v1/groups', (req, res) => page(req, res, 'groups', 'Groups', GROUPS, (list) => list.map((g) => ({ id: g.id, name: g.name }))));
  app.get('/v1/groups/:groupId/members', (req, res) => {
    const id = req.params.groupId;
    if (id.length > 1024) throw new HttpError(400, 'INPUT_VALIDATION_FAILED', 'The id is too long.');
    if (!GROUPS.some((g) => g.id === id)) throw new HttpError(404, 'NOT_FOUND', `Group ${JSON.stringify(id)} not found.`);
    page(req, res, `members:${id}`, 'GroupMembers', membersOf(id), (list) => list);
  });
  app.use((_req, _res, next) => next(new HttpError(404, 'NOT_FOUND', 'No such route.')));
  app.use((error: unknown, _req: Request, res: Response, _next: NextFunction) => {
    const e = error instanceof HttpError ? error : new HttpError(400, 'INPUT_VALIDATION_FAILED', 'The request could not be read.');
    res.status(e.status).json({ error: { code: e.code, message: e.message } });
  });
  return app;
}

export interface RunningBrokenGateway {
  url: string;
  key: string;
  close(): Promise<void>;
}

/** The broken gateway on a loopback port. */
export async function startBrokenGateway(defect?: Defect): Promise<RunningBrokenGateway> {
  const { url, close } = await listenOnLoopback(createBrokenGateway(defect));
  return { url, key: BROKEN_GATEWAY_KEY, close };
}
