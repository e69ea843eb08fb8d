import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AdapterContext, IncrementalAdapter, SyncEvent } from '../../../src/adapters/adapter';
import { createRestAdapter, parseRestManifest } from '../../../src/adapters/rest';
import { silent } from './rest-gateway-fixture';
import { QUICK_RETRIES } from '../../helpers/quick-retries';

/**
 * `listed_version` and child documents: a child gone from a parent read again is deleted, even when
 * a sibling's own access could not be read that run; a failed child listing deletes the children it
could not list (kept, they would keep a grant their parent lost), and they come back next run. Found
 * by rest-shapes.property.test.ts: the removed child stayed served (the checkpoint kept it) because
 * a sibling failed.
 */
const MANIFEST = `version: 1
requester:
  url_base: \${env:API_URL}
  error_handler: { max_retries: 0 }
streams:
  documents:
    incremental_sync: { type: listed_version }
    requester: { path: /docs }
    record_selector: items
    map: { id: id, name: id, url: "'https://docs.example.com/' & id" }
    content: { html: { template: '<p>{{record.id}}</p>' } }
    access: { field: { path: grants, map: { type: "'user'", id: $ } } }
    children:
      - requester: { path: '/docs/{record.id}/files' }
        record_selector: items
        map: { id: id, name: id, url: "'https://files.example.com/' & id" }
        content: { html: { template: '<p>{{record.id}}</p>' } }
        access:
          parent: true
          request:
            requester: { path: '/files/{record.id}/grants' }
            record_selector: items
            map: { type: "'user'", id: $ }
`;

describe('rest adapter, listed_version: children of a parent read again', () => {
  let doc = { id: 'd0', rev: 1, grants: ['ana', 'bo'] };
  let files = ['d0c0', 'd0c1'];
  const failing = new Set<string>();
  const server = http.createServer((req, res) => {
    const path = req.url?.split('?')[0] ?? '';
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (failing.has(path)) return json(500, { error: 'down' });
    if (path === '/docs') return json(200, { items: [doc] });
    if (path === '/docs/d0/files') return json(200, { items: files.map((id) => ({ id })) });
    if (/^\/files\/d0c\d\/grants$/.test(path)) return json(200, { items: ['cy'] });
    return json(404, {});
  });
  let url = '';
  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));
  beforeEach(() => {
    doc = { id: 'd0', rev: 1, grants: ['ana', 'bo'] };
    files = ['d0c0', 'd0c1'];
    failing.clear();
  });

  const ctx: AdapterContext = { logger: silent, signal: new AbortController().signal, now: () => new Date() };
  const adapter = () =>
    createRestAdapter({
      name: 'lv',
      loaded: parseRestManifest(MANIFEST, 'lv.yaml'),
      env: { API_URL: url },
      retryPolicy: QUICK_RETRIES,
    }) as unknown as IncrementalAdapter;
  async function collect(events: AsyncIterable<SyncEvent>): Promise<SyncEvent[]> {
    const out: SyncEvent[] = [];
    for await (const event of events) out.push(event);
    return out;
  }
  async function afterFullRun(): Promise<{ a: IncrementalAdapter; checkpoint: unknown }> {
    const a = adapter();
    const events = await collect(a.full(ctx));
    expect(events.filter((e) => e.type === 'file').map((e) => (e.type === 'file' ? e.file.nativeId : ''))).toEqual(['d0', 'd0c0', 'd0c1']);
    const last = events.at(-1);
    return { a, checkpoint: last?.type === 'checkpoint' ? last.checkpoint : undefined };
  }
  const deleted = (events: SyncEvent[]) => events.flatMap((e) => (e.type === 'delete' ? [e.nativeId] : []));
  const failed = (events: SyncEvent[]) => events.flatMap((e) => (e.type === 'failure' ? [e.nativeId ?? '(no id)'] : []));

  it('deletes a child removed at the source though a sibling failed, and keeps the sibling', async () => {
    const { a, checkpoint } = await afterFullRun();
    doc = { id: 'd0', rev: 2, grants: ['ana'] };
    files = ['d0c1'];
    failing.add('/files/d0c1/grants');
    const events = await collect(a.changes(ctx, checkpoint));
    expect(failed(events)).toEqual(['d0c1']);
    expect(deleted(events)).toEqual(['d0c0']);
    // The sibling stays known: deleted by a later run only if it goes.
    const next = events.at(-1);
    expect(next?.type === 'checkpoint' && (next.checkpoint as { documents: Record<string, { children: string[] }> }).documents.d0?.children).toEqual(['d0c1']);
  });

  it('deletes the children it could not list when the child listing fails (their parent lost a grant they inherit), and lists them again next run', async () => {
    const { a, checkpoint } = await afterFullRun();
    doc = { id: 'd0', rev: 2, grants: ['ana'] };
    files = ['d0c1'];
    failing.add('/docs/d0/files');
    const events = await collect(a.changes(ctx, checkpoint));
    expect(failed(events)).toEqual(['(no id)']);
    // bo lost d0, and with it the children (parent: true): kept as staged, they would still grant bo.
    expect(deleted(events)).toEqual(['d0c0', 'd0c1']);
    const next = events.at(-1);
    expect(next?.type === 'checkpoint' && (next.checkpoint as { documents: Record<string, { version: string; children: string[] }> }).documents.d0).toEqual({
      version: '',
      children: [],
    });
    // The next run reads d0 again: the child still there comes back, without bo.
    failing.clear();
    const again = await collect(a.changes(ctx, next?.type === 'checkpoint' ? next.checkpoint : undefined));
    expect(deleted(again)).toEqual([]);
    const child = again.flatMap((e) => (e.type === 'file' && e.file.nativeId === 'd0c1' ? [e.file] : []))[0];
    expect(child?.access.map((entry) => ('nativeId' in entry ? entry.nativeId : entry.type)).sort()).toEqual(['ana', 'cy']);
  });
});
