import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import pino from 'pino';
import type { AdapterContext, FileRecord, SyncEvent } from '../../../src/adapters/adapter';
import { createWorkManagementAdapter, type WorkManagementCheckpoint } from '../../../src/adapters/work-management';
import type { WorkManagementAdapterOptions } from '../../../src/adapters/work-management/work-management-adapter';
import type { WorkManagementConfigInput } from '../../../src/adapters/work-management/work-management-config';
import { FullRunRequired } from '../../../src/adapters/source-error';
import { FsBlobStore } from '../../../src/blobs/fs-blob-store';
import { runSync } from '../../../src/sync/run-sync';
import { contentBytes } from '../../helpers/content-bytes';
import { manualClock, startMock, type RunningMock } from '@content-gateway/kit/test/mocks/work-management/mock-harness';
import { createTestDatabase } from '../../helpers/test-databases';

const silent = pino({ level: 'silent' });
const ctx = (signal = new AbortController().signal, logger = silent): AdapterContext => ({ logger, signal, now: () => new Date() });

async function collect(events: AsyncIterable<SyncEvent>): Promise<SyncEvent[]> {
  const out: SyncEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}
const files = (events: readonly SyncEvent[]): FileRecord[] => events.flatMap((e) => (e.type === 'file' ? [e.file] : []));
const checkpoints = (events: readonly SyncEvent[]): WorkManagementCheckpoint[] =>
  events.flatMap((e) => (e.type === 'checkpoint' ? [e.checkpoint as WorkManagementCheckpoint] : []));
const last = <T>(list: readonly T[]): T => list[list.length - 1] as T;

const bytesOf = contentBytes;

/** Every request the adapter sends, with what matters to these tests. */
interface Sent {
  method: string;
  url: URL;
  authorization: string | null;
  body?: unknown;
  status?: number;
  retryAfter?: string | null;
}

function recordingFetch(sent: Sent[], before?: (url: URL, init: RequestInit | undefined) => void | Promise<void>): typeof fetch {
  return async (input, init) => {
    const url = new URL(String(input instanceof Request ? input.url : input));
    const headers = new Headers(init?.headers);
    const entry: Sent = {
      method: init?.method ?? 'GET',
      url,
      authorization: headers.get('authorization'),
      body: typeof init?.body === 'string' ? JSON.parse(init.body) : undefined,
    };
    sent.push(entry);
    await before?.(url, init);
    const response = await fetch(input, init);
    entry.status = response.status;
    entry.retryAfter = response.headers.get('retry-after');
    return response;
  };
}

describe('work-management adapter: talking to the service', () => {
  let m: RunningMock;
  afterEach(async () => {
    await m?.close();
  });

  const adapterFor = (mock: RunningMock, config: Partial<WorkManagementConfigInput> = {}, options: WorkManagementAdapterOptions = {}) =>
    createWorkManagementAdapter({ baseUrl: mock.base, token: mock.mock.token, ...config }, options);

  it('honours Retry-After on 429: waits exactly what the service asked, then gets everything', async () => {
    const clock = manualClock(Date.now());
    m = await startMock({ seed: 'limits', size: 'tiny', now: clock.now, hostility: { rateLimitPerMinute: 25 } });
    const sent: Sent[] = [];
    const sleeps: number[] = [];
    const adapter = adapterFor(
      m,
      { concurrency: 1 },
      {
        http: {
          fetch: recordingFetch(sent),
          // The service's clock moves only while the adapter waits, so every wait is visible.
          sleep: async (ms) => {
            sleeps.push(ms);
            clock.advance(ms);
          },
        },
      },
    );
    const limited = await collect(adapter.full(ctx()));

    const rejected = sent.filter((s) => s.status === 429);
    expect(rejected.length).toBeGreaterThan(0);
    expect(sleeps).toEqual(rejected.map((s) => Number(s.retryAfter) * 1000));
    expect(sleeps.every((ms) => ms >= 1000)).toBe(true);

    const free = await startMock({ seed: 'limits', size: 'tiny', hostility: { rateLimitPerMinute: 0 } });
    try {
      const unlimited = await collect(adapterFor(free).full(ctx()));
      expect(
        files(limited)
          .map((f) => f.nativeId)
          .sort(),
      ).toEqual(
        files(unlimited)
          .map((f) => f.nativeId)
          .sort(),
      );
    } finally {
      await free.close();
    }
  });

  it('re-reads an attachment for a fresh download_url at open(), and again when the URL has expired; the token never goes to the download', async () => {
    const clock = manualClock(Date.now());
    m = await startMock({ seed: 'downloads', size: 'tiny', now: clock.now });
    const sent: Sent[] = [];
    let expireNext = false;
    const adapter = adapterFor(
      m,
      {},
      {
        http: {
          fetch: recordingFetch(sent, (url) => {
            // The first download after the flag waits past the URL's two minutes.
            if (url.pathname.startsWith('/_downloads/') && expireNext) {
              expireNext = false;
              clock.advance(3 * 60_000);
            }
          }),
        },
      },
    );
    const events = await collect(adapter.full(ctx()));
    const attachment = files(events).find((f) => f.nativeId.startsWith('attachment:')) as FileRecord;
    const gid = attachment.nativeId.slice('attachment:'.length);
    expect(attachment.content).toMatchObject({ kind: 'binary', version: expect.stringMatching(new RegExp(`^${gid}:\\d+:`)) });
    // Listings never carry the short-lived URL.
    expect(sent.some((s) => JSON.stringify(s.body ?? '').includes('download_url') || s.url.search.includes('download_url'))).toBe(false);

    // Long after the crawl: open() still works, because it reads the attachment again first.
    clock.advance(10 * 60_000);
    const before = sent.length;
    expect((await bytesOf(attachment)).length).toBeGreaterThan(0);
    const reads = (from: number) => sent.slice(from).filter((s) => s.url.pathname.startsWith('/api/') && s.url.pathname.endsWith(`/attachments/${gid}`));
    expect(reads(before)).toHaveLength(1);

    // The URL expires on the way: 403 from the download host, a new URL, then the bytes.
    expireNext = true;
    const again = sent.length;
    expect((await bytesOf(attachment)).length).toBeGreaterThan(0);
    expect(reads(again)).toHaveLength(2);
    const downloads = sent.slice(again).filter((s) => s.url.pathname.startsWith('/_downloads/'));
    expect(downloads.map((s) => s.status)).toEqual([403, 200]);
    expect(sent.filter((s) => s.url.pathname.startsWith('/_downloads/')).every((s) => s.authorization === null)).toBe(true);
    expect(sent.filter((s) => s.url.pathname.startsWith('/api/')).every((s) => s.authorization === `Bearer ${m.mock.token}`)).toBe(true);
  });

  it('gathers reads into batches of at most ten GET actions, and names the sub-fields it needs', async () => {
    m = await startMock({ seed: 'batches', size: 200 });
    const sent: Sent[] = [];
    const adapter = adapterFor(m, {}, { http: { fetch: recordingFetch(sent) } });
    await collect(adapter.full(ctx()));
    const batches = sent.filter((s) => s.method === 'POST' && s.url.pathname.endsWith('/batch'));
    expect(batches.length).toBeGreaterThan(0);
    const actions = batches.flatMap(
      (b) => (b.body as { data: { actions: Array<{ method: string; relative_path: string; options?: { fields?: string[] } }> } }).data.actions,
    );
    expect(Math.max(...batches.map((b) => (b.body as { data: { actions: unknown[] } }).data.actions.length))).toBeLessThanOrEqual(10);
    expect(actions.every((a) => a.method === 'get' && !a.relative_path.includes('?'))).toBe(true);
    const fields = new Set(actions.flatMap((a) => a.options?.fields ?? []));
    for (const f of ['assignee.name', 'member.name', 'member.resource_type', 'created_by.name', 'num_subtasks']) expect(fields).toContain(f);
    const stats = adapter.lastRun;
    expect(stats?.apiRequests).toBe(sent.filter((s) => s.url.pathname.startsWith('/api/')).length);
    expect(stats?.batchedActions).toBe(actions.length);
    // Far fewer requests than tasks: each task's comments, attachments and subtasks share batches.
    expect((stats?.apiRequests ?? Infinity) / (stats?.tasks ?? 1)).toBeLessThan(1);
  });

  it('reads one request at a time when the service has no batch endpoint, with the same result', async () => {
    m = await startMock({ seed: 'batches', size: 'tiny' });
    const sent: Sent[] = [];
    const noBatch: typeof fetch = async (input, init) => {
      if (String(input).endsWith('/batch')) return new Response(JSON.stringify({ errors: [{ message: 'No matching route for request' }] }), { status: 404 });
      return recordingFetch(sent)(input, init);
    };
    const batched = await collect(adapterFor(m).full(ctx()));
    const adapter = adapterFor(m, {}, { http: { fetch: noBatch } });
    const direct = await collect(adapter.full(ctx()));
    expect(
      files(direct)
        .map((f) => f.nativeId)
        .sort(),
    ).toEqual(
      files(batched)
        .map((f) => f.nativeId)
        .sort(),
    );
    expect(adapter.lastRun?.batches).toBe(1);
    expect(sent.every((s) => s.method === 'GET')).toBe(true);
  });

  it('never logs the token, even at debug level and through retries', async () => {
    m = await startMock({ seed: 'secrets', size: 'tiny', hostility: { faultRate: 0.2, faultStatuses: [503] } });
    const lines: string[] = [];
    const logger = pino({ level: 'trace' }, new Writable({ write: (chunk: Buffer, _enc, done) => (lines.push(chunk.toString()), done()) }));
    const adapter = adapterFor(m, {}, { http: { sleep: async () => undefined } });
    await collect(adapter.full(ctx(new AbortController().signal, logger)));
    expect(lines.some((l) => l.includes('retrying'))).toBe(true);
    expect(lines.join('\n')).not.toContain(m.mock.token);
  });
});

describe('work-management adapter: full and incremental runs', () => {
  let m: RunningMock;
  afterEach(async () => {
    await m?.close();
  });

  it('a full run takes its sync tokens before reading, checkpoints as it goes, and resumes after the projects it had done', async () => {
    m = await startMock({ seed: 'resume', size: 120 });
    const adapter = createWorkManagementAdapter({ baseUrl: m.base, token: m.mock.token }, { checkpointEvery: { tasks: 1, ms: 0 } });
    const events = await collect(adapter.full(ctx()));
    const all = checkpoints(events);
    const final = last(all);
    expect(final.progress).toBeUndefined();
    expect(final.streams.workspace).toEqual(expect.any(String));
    const middle = all.find((c) => (c.progress?.projectsDone.length ?? 0) >= 2) as WorkManagementCheckpoint;
    expect(middle).toBeDefined();
    // Every checkpoint of the run carries the same tokens and watermark: taken before the crawl.
    expect(new Set(all.map((c) => `${c.streams.workspace} ${c.watermark}`)).size).toBe(1);

    const resumed = await collect(adapter.full(ctx(), middle));
    const done = new Set(middle.progress?.projectsDone);
    const onlyInDone = [...m.mock.model.indexes.tasks.values()].filter(
      (t) => t.parent === null && t.memberships.length > 0 && t.memberships.every((x) => done.has(x.project)) && !t.assignee,
    );
    expect(onlyInDone.length).toBeGreaterThan(0);
    const again = new Set(files(resumed).map((f) => f.nativeId));
    for (const t of onlyInDone) expect(again.has(`task:${t.gid}`)).toBe(false);
    const end = last(checkpoints(resumed));
    expect({ streams: end.streams.workspace, watermark: end.watermark }).toEqual({ streams: middle.streams.workspace, watermark: middle.watermark });
    // What the interrupted part saw is kept: the attachments of the projects already done.
    for (const [task, ids] of Object.entries(middle.attachments)) expect(end.attachments[task]).toEqual(ids);
  });

  it('an expired sync token (412) requires a full run: the engine runs one instead, and its summary says why', async () => {
    m = await startMock({ seed: 'expire', size: 'tiny' });
    const adapter = createWorkManagementAdapter({ baseUrl: m.base, token: m.mock.token });
    const final = last(checkpoints(await collect(adapter.full(ctx()))));
    await m.call('/_admin/sync-tokens/expire', { body: {} });
    await expect(collect(adapter.changes(ctx(), final))).rejects.toBeInstanceOf(FullRunRequired);

    const t = await createTestDatabase('sqlite');
    const blobDir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-wm-expire-'));
    try {
      const deps = { db: t.db, blobs: new FsBlobStore(blobDir), logger: silent };
      expect((await runSync(adapter, deps, { mode: 'full' })).status).toBe('succeeded');
      await m.call('/_admin/sync-tokens/expire', { body: {} });
      const summary = await runSync(adapter, deps, { mode: 'auto' });
      expect(summary).toMatchObject({ status: 'succeeded', mode: 'full', fellBackToFull: expect.stringMatching(/sync token is no longer accepted/) });
      // And the run after that is incremental again, with fresh tokens.
      expect((await runSync(adapter, deps, { mode: 'auto' })).mode).toBe('incremental');
    } finally {
      await t.destroy();
      fs.rmSync(blobDir, { recursive: true, force: true });
    }
  });

  it('a user who becomes active again needs a full run (their grants were dropped meanwhile)', async () => {
    m = await startMock({ seed: 'reactivate', size: 'tiny' });
    const org = m.mock.organization.organization;
    const adapter = createWorkManagementAdapter({ baseUrl: m.base, token: m.mock.token });
    const store = m.mock.model;
    const membership = [...store.indexes.workspaceMemberships.values()].find((x) => x.workspace === org && x.isActive && !x.isGuest) as {
      gid: string;
      user: string;
    };
    await m.call(`/_admin/users/${membership.user}/deactivate`, { body: {} });
    const first = last(checkpoints(await collect(adapter.full(ctx()))));
    expect(first.inactive).toContain(membership.user);
    await m.call(`/_admin/workspace_memberships/${membership.gid}`, { method: 'PUT', body: { is_active: true } });
    await expect(collect(adapter.changes(ctx(), first))).rejects.toThrow(/became active again/);
  });

  it('an incremental run follows has_more until the stream is read, with one stream per project and per task in no project', async () => {
    m = await startMock({ seed: 'streams', size: 'tiny' });
    const org = m.mock.organization.organization;
    const store = m.mock.model;
    const adapter = createWorkManagementAdapter({ baseUrl: m.base, token: m.mock.token, eventStreams: 'projects' });
    const final = last(checkpoints(await collect(adapter.full(ctx()))));
    expect(final.streams.workspace).toBeUndefined();
    expect(Object.keys(final.streams.projects).sort()).toEqual(
      [...store.indexes.projects.values()]
        .filter((p) => p.workspace === org)
        .map((p) => p.gid)
        .sort(),
    );
    const orphans = [...store.indexes.tasks.values()].filter((t) => t.workspace === org && t.parent === null && t.memberships.length === 0).map((t) => t.gid);
    expect(orphans.length).toBeGreaterThan(0);
    expect(Object.keys(final.streams.tasks).sort()).toEqual(orphans.sort());

    // 250 events in one project stream (100 a page): moves, which leave modified_at alone.
    const [from, to] = [...store.indexes.projects.values()].filter((p) => p.workspace === org) as unknown as [{ gid: string }, { gid: string }];
    const task = store.indexes.tasks.get(store.indexes.tasksByProject.get(from.gid)?.[0] ?? '') as Parameters<typeof store.tasks.addToProject>[0];
    for (let i = 0; i < 125; i++) {
      store.tasks.addToProject(task, to.gid);
      store.tasks.removeFromProject(task, to.gid);
    }
    store.tasks.addToProject(task, to.gid);
    const events = await collect(adapter.changes(ctx(), final));
    expect(adapter.lastRun?.events).toBeGreaterThanOrEqual(251);
    const moved = files(events).find((f) => f.nativeId === `task:${task.gid}`) as FileRecord;
    expect(moved.access).toEqual(expect.arrayContaining([{ type: 'GROUP', nativeId: `project:${to.gid}` }]));
  });
});
