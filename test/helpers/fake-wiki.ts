import crypto from 'node:crypto';
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WikiGroup, WikiPage, WikiUser } from '../../src/adapters/example-wiki/example-wiki-mapping';

/**
 * A stateful fake of the wiki REST API the example-wiki adapter reads: a real HTTP server on
 * 127.0.0.1:0 serving `GET /api/v1/{pages,users,groups}?cursor=&limit=` as
 * `{ items, next_cursor }`, with bearer auth (401 without the token) and pages capped at
 * `maxPageSize` whatever `limit` asks, so a small dataset still takes several pages. Tests edit
 * and delete pages as people do in the wiki.
 */
export interface FakeWiki {
  /** What EXAMPLE_WIKI_URL is set to. */
  baseUrl: string;
  /** What EXAMPLE_WIKI_TOKEN is set to: random per fake. */
  token: string;
  pages: Map<string, WikiPage>;
  users: Map<string, WikiUser>;
  groups: Map<string, WikiGroup>;
  /** Every request's path and query, as received. */
  requests: string[];
  /** Replaces a page's body and bumps its `updated_at`, as an edit in the wiki does. */
  editPage(id: string, bodyHtml: string): void;
  close(): Promise<void>;
}

const SITE = 'https://wiki.example.com';

function page(id: string, title: string, body: string, access: Pick<WikiPage, 'public' | 'readers'>, space = { id: 'handbook', name: 'Handbook' }): WikiPage {
  return {
    id,
    title,
    url: `${SITE}/spaces/${space.id}/pages/${id}`,
    body_html: body,
    created_at: '2026-01-12T09:30:00.000Z',
    updated_at: '2026-02-03T16:00:00.000Z',
    author_email: 'ana@example.com',
    space,
    ...access,
  };
}

const nobody = { users: [], groups: [] };

/** A small wiki: nested groups, a deactivated account, a public page, pages for groups, a user, and nobody. */
export function exampleWikiData(): { pages: WikiPage[]; users: WikiUser[]; groups: WikiGroup[] } {
  const eng = { id: 'eng', name: 'Engineering' };
  return {
    users: [
      { id: 'u1', email: 'ana@example.com', display_name: 'Ana Lima', deactivated: false },
      { id: 'u2', email: 'bo@example.com', display_name: 'Bo Chen', deactivated: false },
      { id: 'u3', email: 'cy@example.com', display_name: 'Cy Okafor', deactivated: true },
    ],
    groups: [
      {
        id: 'g-staff',
        name: 'All staff',
        members: [
          { type: 'group', id: 'g-eng' },
          { type: 'user', id: 'u3' },
        ],
      },
      {
        id: 'g-eng',
        name: 'Engineering',
        members: [
          { type: 'user', id: 'u1' },
          { type: 'user', id: 'u2' },
        ],
      },
    ],
    pages: [
      page('p-welcome', 'Welcome', '<p>Start here.</p>', { public: true, readers: nobody }),
      page('p-holidays', 'Holidays', '<p>25 days a year.</p>', { public: false, readers: { users: [], groups: ['g-staff'] } }),
      page('p-oncall', 'On-call rota', '<p>Week 1: Ana.</p>', { public: false, readers: { users: [], groups: ['g-eng'] } }, eng),
      page('p-deploy', 'Deploying', '<ol><li>Merge</li><li>Tag</li></ol>', { public: false, readers: { users: ['u3'], groups: ['g-eng'] } }, eng),
      page('p-review', 'Salary review', '<p>Draft.</p>', { public: false, readers: { users: ['u1'], groups: [] } }),
      page('p-draft', 'Empty draft', '<p>Nobody may read this yet.</p>', { public: false, readers: nobody }),
    ],
  };
}

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
}

export async function startFakeWiki(options: { maxPageSize?: number } = {}): Promise<FakeWiki> {
  const data = exampleWikiData();
  const token = crypto.randomBytes(16).toString('hex');
  const maxPageSize = options.maxPageSize ?? 2;
  const collections = {
    pages: new Map(data.pages.map((p) => [p.id, p])),
    users: new Map(data.users.map((u) => [u.id, u])),
    groups: new Map(data.groups.map((g) => [g.id, g])),
  };
  const requests: string[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://fake');
    requests.push(req.url ?? '');
    if (req.headers.authorization !== `Bearer ${token}`) return send(res, 401, { error: 'invalid or missing token' });
    const name = /^\/api\/v1\/(pages|users|groups)$/.exec(url.pathname)?.[1] as keyof typeof collections | undefined;
    if (req.method !== 'GET' || name === undefined) return send(res, 404, { error: 'no such route' });
    // The cursor is opaque to clients: here, the offset of the next item, base64url-encoded.
    const items = [...collections[name].values()];
    const cursor = url.searchParams.get('cursor');
    const from = cursor === null ? 0 : Number(Buffer.from(cursor, 'base64url').toString());
    const limit = Math.min(Number(url.searchParams.get('limit') ?? maxPageSize), maxPageSize);
    const next = from + limit < items.length ? Buffer.from(String(from + limit)).toString('base64url') : null;
    return send(res, 200, { items: items.slice(from, from + limit), next_cursor: next });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/api/v1`,
    token,
    ...collections,
    requests,
    editPage(id, bodyHtml) {
      const current = collections.pages.get(id);
      if (!current) throw new Error(`the fake wiki has no page ${id}`);
      collections.pages.set(id, { ...current, body_html: bodyHtml, updated_at: new Date(Date.parse(current.updated_at) + 60_000).toISOString() });
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
