import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small REST API of another style than the gateways, on 127.0.0.1:0: five items listed through
 * each paging style, logins of every kind the manifests know, and switches that make it misbehave
 * (a cursor that loops, an offset it ignores, a token it expires early). Every request is recorded.
 */
export interface FakeRestApi {
  url: string;
  requests: string[];
  /** Logins and token grants answered. */
  logins: number;
  /** Requests to /flaky so far (the first two are refused with 409). */
  flaky: number;
  /** Spaces whose grants fail after their first page (503, every retry included). */
  broken: Set<string>;
  /** A failure to answer instead of the real page (a status, or a 200 that is not JSON), when it says so. */
  fault?: (url: URL) => { status: number; body: string } | undefined;
  /** The next request with this token is refused with 401 (an expired session). */
  expire(token: string): void;
  close(): Promise<void>;
}

export const ITEMS = ['a', 'b', 'c', 'd', 'e'].map((id, i) => ({ id, title: `Item ${id.toUpperCase()}`, n: i }));
/** Spaces whose members may read their documents (an open space: everyone), and documents in them. */
export const SPACES = [
  { id: 's-eng', name: 'Engineering', open: false, members: ['ana@example.com', 'bo@example.com'] },
  { id: 's-all', name: 'Company', open: true, members: [] },
  { id: 's-ops', name: 'Operations', open: false, members: ['cy@example.com'] },
];
export const DOCS = [
  { id: 'd1', title: 'Design', summary: 'Fish & <chips>', space: 's-eng', created: '2026-01-02T03:04:05Z', tags: { team: 'eng' } },
  { id: 'd2', title: 'Handbook', space: 's-all', created: '2026-01-03T03:04:05Z', tags: { team: 'all' } },
  { id: 'd3', title: 'Runbook', space: 's-ops', created: '2026-01-04T03:04:05Z', tags: { team: 'ops' } },
  { id: 'd4', title: 'Notes', space: null, created: '2026-01-05T03:04:05Z', tags: {} },
];
/** People (one suspended), teams (one nested in another) and who each space grants, for the spaces manifest. */
export const PEOPLE = [
  { id: 'p1', email: 'Ana@Example.com', name: 'Ana Lima', status: 'active' },
  { id: 'p2', email: 'bo@example.com', name: 'Bo Chen', status: 'active' },
  { id: 'p3', email: 'cy@example.com', name: 'Cy Okafor', status: 'suspended' },
  { id: 'p4', email: 'di@example.com', name: 'Di Park', status: 'active' },
];
export const TEAMS = [
  {
    id: 't-eng',
    name: 'Engineering',
    members: [
      { kind: 'person', ref: 'ana@example.com' },
      { kind: 'team', ref: 't-sre' },
    ],
  },
  { id: 't-sre', name: 'SRE', members: [{ kind: 'person', ref: 'DI@example.com' }] },
];
export const GRANTS: Record<string, Array<{ kind: string; ref: string }>> = {
  's-eng': [
    { kind: 'team', ref: 't-eng' },
    { kind: 'person', ref: 'bo@example.com' },
  ],
  's-all': [],
  's-ops': [
    { kind: 'person', ref: 'cy@example.com' },
    { kind: 'team', ref: 't-sre' },
  ],
};
export const SECRETS = { password: 'pa55-word-xyz', clientSecret: 'client-secret-xyz', apiKey: 'api-key-xyz', refreshToken: 'refresh-xyz' };

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  let text = '';
  for await (const chunk of req) text += String(chunk);
  return text;
}

export async function startFakeRestApi(): Promise<FakeRestApi> {
  const issued = new Set<string>();
  let refresh = SECRETS.refreshToken;
  const expiring = new Set<string>();
  const api: FakeRestApi = {
    url: '',
    requests: [],
    logins: 0,
    flaky: 0,
    broken: new Set(),
    expire: (token) => expiring.add(token),
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
  const token = () => {
    api.logins += 1;
    const t = `tok-${api.logins}`;
    issued.add(t);
    return t;
  };
  const server = createServer((req, res) => {
    void (async () => {
      const url = new URL(req.url ?? '/', api.url);
      api.requests.push(`${req.method} ${url.pathname}${url.search}`);
      const q = (name: string) => url.searchParams.get(name);
      const fault = api.fault?.(url);
      if (fault) {
        res.writeHead(fault.status, { 'content-type': 'application/json' });
        return res.end(fault.body);
      }
      const body = await bodyOf(req);
      if (url.pathname === '/login') {
        const given = JSON.parse(body || '{}') as { user?: string; password?: string };
        return given.password === SECRETS.password ? send(res, 200, { session: { token: token() }, expires_in: 600 }) : send(res, 401, { error: 'bad login' });
      }
      if (url.pathname === '/oauth/token') {
        const form = new URLSearchParams(body);
        if (form.get('grant_type') === 'refresh_token') {
          // Refresh tokens rotate: each is good for one grant, which returns the next.
          if (form.get('refresh_token') !== refresh) return send(res, 400, { error: 'invalid_grant' });
          refresh = `${SECRETS.refreshToken}-${api.logins + 2}`;
          return send(res, 200, { access_token: token(), refresh_token: refresh, expires_in: 3600 });
        }
        if (form.get('grant_type') !== 'client_credentials' || form.get('client_secret') !== SECRETS.clientSecret)
          return send(res, 401, { error: 'invalid_client' });
        return send(res, 200, { access_token: token(), token_type: 'Bearer', expires_in: 3600 });
      }
      const bearer = req.headers.authorization?.replace(/^Bearer /, '');
      const basic = req.headers.authorization === `Basic ${Buffer.from(`svc:${SECRETS.password}`).toString('base64')}`;
      if (bearer !== undefined && expiring.delete(bearer)) {
        issued.delete(bearer);
        return send(res, 401, { error: 'session expired' });
      }
      const authorized = basic || q('api_key') === SECRETS.apiKey || (bearer !== undefined && issued.has(bearer));
      if (!authorized) return send(res, 401, { error: 'unauthorized' });
      const limit = Number(q('limit') ?? 2);
      switch (url.pathname) {
        case '/offset': {
          const offset = q('mode') === 'stuck' ? 0 : Number(q('offset') ?? 0);
          return send(res, 200, { data: { items: ITEMS.slice(offset, offset + limit) } });
        }
        case '/pages': {
          const page = Number(q('page') ?? 1);
          return send(res, 200, { results: ITEMS.slice((page - 1) * limit, page * limit), has_more: page * limit < ITEMS.length, total: ITEMS.length });
        }
        case '/linked': {
          const page = Number(q('page') ?? 0);
          const link: Record<string, string> =
            (page + 1) * 2 < ITEMS.length ? { link: `<${api.url}/linked?page=${page + 1}>; rel="next", <${api.url}/linked?page=0>; rel="first"` } : {};
          return send(res, 200, ITEMS.slice(page * 2, page * 2 + 2), link);
        }
        case '/headers': {
          const at = Number(q('after') ?? 0);
          const next: Record<string, string> = at + 2 < ITEMS.length ? { 'x-next-cursor': String(at + 2) } : {};
          return send(res, 200, { items: ITEMS.slice(at, at + 2) }, next);
        }
        case '/spaces':
          return send(res, 200, { spaces: SPACES.map(({ id, name, open }) => ({ id, name, open })) });
        case '/spaces/s-ops/members':
          // The ops space's member list fails (every retry included): its access cannot be read.
          return send(res, 503, { error: 'directory down' });
        case '/docs':
          return send(res, 200, { docs: DOCS });
        case '/search': {
          // A POST listing whose body carries a secret of its own.
          const asked = JSON.parse(body || '{}') as { filter?: { key?: string }; page?: number };
          return asked.filter?.key === SECRETS.apiKey && req.method === 'POST' ? send(res, 200, { hits: ITEMS }) : send(res, 400, { error: 'bad search' });
        }
        case '/people': {
          // A cursor in the body, two people a page.
          const at = Number(q('cursor') ?? 0);
          return send(res, 200, { people: PEOPLE.slice(at, at + 2), next_cursor: at + 2 < PEOPLE.length ? String(at + 2) : null });
        }
        case '/teams': {
          // Link headers, one team a page.
          const page = Number(q('page') ?? 0);
          const more: Record<string, string> = page + 1 < TEAMS.length ? { link: `<${api.url}/teams?page=${page + 1}>; rel="next"` } : {};
          return send(res, 200, TEAMS.slice(page, page + 1), more);
        }
        case '/wrapped':
          // An error hidden inside a 200 answer, as some APIs do.
          return send(res, 200, { ok: false, error: 'quota exceeded' });
        case '/flaky':
          api.flaky += 1;
          return api.flaky <= 2 ? send(res, 409, { error: 'busy, try again' }) : send(res, 200, { data: { items: ITEMS.slice(0, 2) } });
        case '/looping':
          // Page after page, the same next cursor: a listing that would never end.
          return send(res, 200, { items: ITEMS.slice(q('c') ? 1 : 0, q('c') ? 2 : 1), next: 'same-cursor-again' });
        default: {
          const grants = /^\/grants\/([^/]+)$/.exec(url.pathname);
          const list = grants ? GRANTS[grants[1] ?? ''] : undefined;
          if (list) {
            // One grant a page, a cursor in the body; a broken space fails from its second page on.
            const at = Number(q('cursor') ?? 0);
            if (at > 0 && api.broken.has(grants?.[1] ?? '')) return send(res, 503, { error: 'grants store down' });
            return send(res, 200, { grants: list.slice(at, at + 1), next: at + 1 < list.length ? String(at + 1) : '' });
          }
          const space = /^\/spaces\/([^/]+)\/members$/.exec(url.pathname);
          const members = SPACES.find((s) => s.id === space?.[1])?.members;
          if (members) return send(res, 200, { members: members.map((email) => ({ email: email.toUpperCase() })) });
          return send(res, 404, { error: 'no such route' });
        }
      }
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  api.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return api;
}
