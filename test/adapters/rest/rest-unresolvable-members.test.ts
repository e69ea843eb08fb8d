import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createRestAdapter, parseRestManifest } from '../../../src/adapters/rest';
import { FsBlobStore } from '../../../src/blobs/fs-blob-store';
import { runAccessSync } from '../../../src/sync/run-access-sync';
import { runSync, type SyncSummary } from '../../../src/sync/run-sync';
import { createTestDatabase, databaseKinds, type TestDatabase } from '../../helpers/test-databases';
import { QUICK_RETRIES } from '../../helpers/quick-retries';
import { stagedAccess } from '../work-management/staged-access';
import { silent } from './rest-gateway-fixture';

/**
 * A group's member list the adapter reads whole but cannot resolve whole (an entry of a type it
 * does not know, one without an id, everyone) fails closed: the group fails, and its staged
 * members are narrowed to the members the rest of the list names, never one added, so a member
 * the source removed in the same edit loses the documents shared with the group, whether the
 * members come from a field of the group's record or from a request per group. A transient
 * failure (a page of the member listing answering 500) keeps the staged members: never a
 * truncated list. A group not staged yet with such a list stays unstaged.
 */
/** `unknown` values: a careless source serves an entry's type or id as a list or an object. */
type Entry = { type: unknown; id?: unknown };
const user = (id: string): Entry => ({ type: 'user', id });
const group = (id: string): Entry => ({ type: 'group', id });
const ROBOT: Entry = { type: 'robot', id: 'r2d2' };
const NO_ID: Entry = { type: 'user' };

/** A source on loopback: users, groups (members in the record, and paged two at a time by `/groups/<id>/members`), documents granted to groups. */
class FakeSource {
  groups = new Map<string, Entry[]>();
  docs = new Map<string, Entry[]>();
  /** Paths (with their query) answered 500. */
  failing = new Set<string>();
  url = '';
  private readonly server = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://localhost');
    const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    if (this.failing.has(`${url.pathname}${url.search}`)) return json(500, { error: 'down' });
    if (url.pathname === '/users') return json(200, { items: ['ana', 'bo', 'cy', 'di'].map((id) => ({ id, email: `${id}@example.com` })) });
    if (url.pathname === '/groups') return json(200, { items: [...this.groups].map(([id, members]) => ({ id, members })) });
    if (url.pathname === '/docs') return json(200, { items: [...this.docs].map(([id, acl]) => ({ id, acl })) });
    const [, id] = /^\/groups\/([^/]+)\/members$/.exec(url.pathname) ?? [];
    const members = id === undefined ? undefined : this.groups.get(id);
    if (!members) return json(404, {});
    const page = Number(url.searchParams.get('page') ?? '1');
    const more = members.length > page * 2;
    return json(200, { items: members.slice((page - 1) * 2, page * 2), next: more ? `${this.url}/groups/${id}/members?page=${page + 1}` : null });
  });

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

type Members = 'field' | 'request';
const PRINCIPAL = 'map: { type: type, id: id }';
const MEMBERS: Record<Members, string> = {
  field: `field: { path: members, ${PRINCIPAL} }`,
  request: `request: { requester: { path: '/groups/{record.id}/members' }, paginator: { type: next_url, next_url_path: next }, record_selector: items, ${PRINCIPAL} }`,
};

function manifest(members: Members): string {
  return `version: 1
requester:
  url_base: \${env:API_URL}
  error_handler: { max_retries: 0 }
streams:
  users:
    requester: { path: /users }
    record_selector: items
    map: { id: id, email: email }
  groups:
    requester: { path: /groups }
    record_selector: items
    map: { id: id, name: id }
    members:
      ${MEMBERS[members]}
  documents:
    requester: { path: /docs }
    record_selector: items
    map: { id: id, name: id, url: "'https://docs.example.com/' & id" }
    content: { html: { template: '<p>{{record.id}}</p>' } }
    access: { field: { path: acl, ${PRINCIPAL} } }
`;
}

describe.each(databaseKinds)('rest adapter: a group member list it cannot resolve fails closed (%s staging)', (kind) => {
  const api = new FakeSource();
  let t: TestDatabase;
  let blobDir: string;
  let clock: number;
  beforeAll(() => api.start());
  afterAll(() => api.close());
  beforeEach(async () => {
    t = await createTestDatabase(kind);
    blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-rest-members-'));
    clock = Date.parse('2026-06-01T00:00:00Z');
    api.failing.clear();
    api.groups.clear();
    api.docs.clear();
    // team: ana, bo, cy (two pages of members); outer: team and di. d-team is team's, d-outer outer's.
    api.groups.set('team', [user('ana'), user('bo'), user('cy')]);
    api.groups.set('outer', [group('team'), user('di')]);
    api.docs.set('d-team', [group('team')]);
    api.docs.set('d-outer', [group('outer')]);
  });
  afterEach(async () => {
    await t.destroy();
    fs.rmSync(blobDir, { recursive: true, force: true });
  });

  const run = (members: Members, accessOnly = false): Promise<SyncSummary> => {
    clock += 60_000;
    const at = clock;
    const adapter = createRestAdapter({
      name: 'ra',
      loaded: parseRestManifest(manifest(members), 'ra.yaml'),
      env: { API_URL: api.url },
      retryPolicy: QUICK_RETRIES,
    });
    const deps = { db: t.db, blobs: new FsBlobStore(blobDir), logger: silent, now: () => new Date(at) };
    return accessOnly ? runAccessSync(adapter, deps) : runSync(adapter, deps, { mode: 'full' });
  };
  /** Who staging lets see each document (groups expanded), sorted. */
  const served = async (): Promise<Record<string, string[]>> => {
    const staged = [...(await stagedAccess(t.db, 'ra'))].sort(([a], [b]) => a.localeCompare(b));
    return Object.fromEntries(staged.map(([doc, who]) => [doc, [...who].sort()]));
  };
  const staged = async (id: string) => {
    const row = (await t
      .db('groups')
      .where({ id: `ra:${id}` })
      .first('modified_at')) as { modified_at: string } | undefined;
    const members = (await t
      .db('group_members')
      .where({ group_id: `ra:${id}` })
      .select('member_type', 'member_id')) as Array<{ member_type: string; member_id: string }>;
    return row && { modified: row.modified_at, members: members.map((m) => `${m.member_type} ${m.member_id}`).sort() };
  };
  const succeededFailing = (summary: SyncSummary, count: number) => expect([summary.status, summary.failures.length]).toEqual(['succeeded', count]);
  const FIRST = { 'd-outer': ['ana', 'bo', 'cy', 'di'], 'd-team': ['ana', 'bo', 'cy'] };

  it.each<[Members, Entry]>([
    ['field', ROBOT],
    ['request', ROBOT],
    ['request', NO_ID],
    ['field', { type: 'everyone', id: '*' }],
    // Values the mapping cannot read as text: as unresolvable as an unknown type, not a transient failure.
    ['field', { type: 'user', id: { login: 'r2d2' } }],
    ['request', { type: ['user', 'bot'], id: 'r2d2' }],
  ])('members by %s, an entry %j: bo, removed in the edit that added it, loses what the group gave; ana and cy keep it', async (members, bad) => {
    succeededFailing(await run(members), 0);
    expect(await served()).toEqual(FIRST);
    const before = await staged('team');
    // di, named by the new list, was not a member before: not added while the list cannot be resolved.
    api.groups.set('team', [user('ana'), user('cy'), bad, user('di')]);
    const summary = await run(members);
    succeededFailing(summary, 1);
    expect(summary.failures[0]).toMatch(/^team: streams\.groups/);
    expect(await served()).toEqual({ 'd-outer': ['ana', 'cy', 'di'], 'd-team': ['ana', 'cy'] });
    const narrowed = await staged('team');
    expect(narrowed?.members).toEqual(['USER ra:ana', 'USER ra:cy']);
    expect(narrowed!.modified > before!.modified).toBe(true);
    // Read whole again: the group is as the source lists it.
    api.groups.set('team', [user('ana'), user('bo'), user('di')]);
    succeededFailing(await run(members), 0);
    expect(await served()).toEqual({ 'd-outer': ['ana', 'bo', 'di'], 'd-team': ['ana', 'bo', 'di'] });
  });

  it('a sub-group the list no longer names for certain is dropped, with everyone it gave', async () => {
    succeededFailing(await run('request'), 0);
    api.groups.set('outer', [ROBOT, user('di')]);
    succeededFailing(await run('request'), 1);
    expect(await served()).toEqual({ 'd-outer': ['di'], 'd-team': ['ana', 'bo', 'cy'] });
  });

  it('an access-only run narrows the same way', async () => {
    succeededFailing(await run('request'), 0);
    api.groups.set('team', [user('ana'), ROBOT]);
    const summary = await run('request', true);
    expect(summary.mode).toBe('access');
    succeededFailing(summary, 1);
    expect(await served()).toEqual({ 'd-outer': ['ana', 'di'], 'd-team': ['ana'] });
  });

  it('a page of the member listing answering 500 keeps the staged members (never a truncated list), in the run that removed bo too', async () => {
    succeededFailing(await run('request'), 0);
    const before = await staged('team');
    api.groups.set('team', [user('ana'), user('cy'), ROBOT, user('di')]);
    api.failing.add('/groups/team/members?page=2');
    const summary = await run('request');
    succeededFailing(summary, 1);
    expect(summary.failures[0]).toMatch(/^team: Remote answered 500 /);
    expect(await staged('team')).toEqual(before);
    expect(await served()).toEqual(FIRST);
  });

  it('a new group whose list cannot be resolved is not staged: nobody sees what is shared with it', async () => {
    succeededFailing(await run('field'), 0);
    api.groups.set('new', [user('ana'), ROBOT]);
    api.docs.set('d-new', [group('new')]);
    succeededFailing(await run('field'), 1);
    expect(await staged('new')).toBeUndefined();
    expect((await served())['d-new']).toEqual([]);
  });
});
