import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { createWorkManagementAdapter } from 'content-gateway';
import { OutboundHttpClient } from 'content-gateway';
import { FsBlobStore } from 'content-gateway';
import { applyChangeRound } from '../src/scenarios/change-round';
import { MockClient } from '../src/scenarios/mock-client';
import type { Hostility } from '../src/mocks/work-management/hostility';
import { createWorkManagementMock } from '../src/mocks/work-management/create-mock-server';
import { createDb } from 'content-gateway';
import { migrateLatest } from 'content-gateway';
import { runSync, type SyncDeps } from 'content-gateway';
import { loadNote } from './load-note';
import { measurement, type BenchmarkResult } from './report';
import { listenOnLoopback } from 'content-gateway/lib';

export interface WmSyncOptions {
  /** Tasks of the generated organization (subtasks included). */
  tasks: number;
  /** Requests in flight, for the adapter and the naive crawler alike. */
  concurrency: number;
}

const DEFAULTS: WmSyncOptions = { tasks: 5_000, concurrency: 4 };
const SEED = 'wm-sync-bench';
const SUPPORTED = /\.(pdf|docx|pptx|txt)$/i;
const logger = pino({ level: 'silent' });

interface RunningMock {
  url: string;
  base: string;
  token: string;
  organization: string;
  orgTasks: number;
  setHostility(patch: Partial<Hostility>): void;
  close(): Promise<void>;
}

/** The mock on 127.0.0.1:0 with rate and concurrency limits off (latency and faults are off by default). */
async function startMock(tasks: number): Promise<RunningMock> {
  const mock = createWorkManagementMock({ seed: SEED, size: tasks, hostility: { rateLimitPerMinute: 0, maxConcurrentReads: 0, maxConcurrentWrites: 0 } });
  const server = await listenOnLoopback(mock.app);
  const org = mock.organization.organization;
  return {
    url: server.url,
    base: `${server.url}/api/1.0`,
    token: mock.token,
    organization: org,
    orgTasks: [...mock.model.indexes.tasks.values()].filter((t) => t.workspace === org).length,
    setHostility: (patch) => void mock.setHostility(patch),
    close: server.close,
  };
}

/** What one run asked the service for: HTTP requests (a batch counts once) and reads (each counts against its quota). */
interface RunCost {
  requests: number;
  reads: number;
}

/** The share of an incremental run's requests access reconciliation may cost, against a full sync's. */
const RECONCILED_SHARE_GOAL = 0.1;

function costOf(stats: { apiRequests: number; downloadRequests: number; batchedActions: number; directReads: number }): RunCost {
  return { requests: stats.apiRequests + stats.downloadRequests, reads: stats.batchedActions + stats.directReads + stats.downloadRequests };
}

/**
 * Incremental runs after the full one, on the same staging: with nothing changed, without and
 * with access reconciliation (what polling costs), then after the harness's change round with a
 * fifth of its events lost, with reconciliation.
 */
async function incrementalCosts(
  adapter: ReturnType<typeof createWorkManagementAdapter>,
  deps: SyncDeps,
  mock: RunningMock,
): Promise<{ off: RunCost; on: RunCost; changed: RunCost; unannounced: number }> {
  const run = async (reconcile: boolean): Promise<{ cost: RunCost; unannounced: number }> => {
    const summary = await runSync(adapter, deps, { mode: 'auto', reconcile });
    if (summary.status !== 'succeeded' || summary.mode !== 'incremental' || !adapter.lastRun)
      throw new Error(`the incremental sync did not succeed: ${JSON.stringify(summary)}`);
    return { cost: costOf(adapter.lastRun), unannounced: summary.reconciliation?.unannounced ?? 0 };
  };
  const off = await run(false);
  const on = await run(true);
  mock.setHostility({ eventLossRate: 0.2, seed: 'wm-sync-bench' });
  await applyChangeRound(new MockClient(mock.url, mock.token, { logger }), mock.organization, () => undefined);
  const changed = await run(true);
  return { off: off.cost, on: on.cost, changed: changed.cost, unannounced: changed.unannounced };
}

/** Runs `work` over `items` with at most `limit` at a time. */
async function pool<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      while (next < items.length) await work(items[next++] as T);
    }),
  );
}

/**
 * The baseline: a straightforward crawler that reads each record with a request of its own,
 * with the same concurrency and the same shared HTTP client (retries, paging): lists of compact
 * records, then GET per task, its stories, its attachments and its subtasks (recursively), per
 * attachment a GET and the download, per team and project its memberships, per member their
 * task list. It stages nothing: its time is the floor of that way of reading.
 */
async function naiveCrawl(base: string, token: string, concurrency: number): Promise<{ tasks: number; requests: number; ms: number }> {
  const client = new OutboundHttpClient({ baseUrl: base, logger, headers: () => ({ authorization: `Bearer ${token}` }) });
  const downloads = new OutboundHttpClient({ baseUrl: new URL(base).origin, logger });
  const all = async <T>(p: string, query: Record<string, string> = {}): Promise<T[]> => {
    const out: T[] = [];
    let offset: string | undefined;
    do {
      const page = await client.json<{ data: T[]; next_page?: { offset: string } | null }>('GET', p, { query: { ...query, limit: 100, offset } });
      out.push(...page.data);
      offset = page.next_page?.offset;
    } while (offset);
    return out;
  };
  const t0 = performance.now();
  const workspaces = await all<{ gid: string; is_organization: boolean }>('/workspaces', { opt_fields: 'is_organization' });
  const ws = (workspaces.find((w) => w.is_organization) ?? workspaces[0])?.gid as string;
  const [, memberships, teams, projects] = await Promise.all([
    all('/users', { workspace: ws, opt_fields: 'name,email' }),
    all<{ user_task_list: { gid: string } }>(`/workspaces/${ws}/workspace_memberships`, { opt_fields: 'user,is_active,is_guest,user_task_list' }),
    all<{ gid: string }>(`/workspaces/${ws}/teams`),
    all<{ gid: string }>(`/workspaces/${ws}/projects`),
  ]);
  await pool(teams, concurrency, async (t) => void (await all(`/teams/${t.gid}/team_memberships`)));
  await pool(projects, concurrency, async (p) => {
    await all('/memberships', { parent: p.gid });
    await all(`/projects/${p.gid}/project_portfolio_settings`);
    await all('/attachments', { parent: p.gid });
  });
  const seen = new Set<string>();
  const readTask = async (gid: string): Promise<void> => {
    if (seen.has(gid)) return;
    seen.add(gid);
    await client.json('GET', `/tasks/${gid}`);
    await all(`/tasks/${gid}/stories`);
    const attachments = await all<{ gid: string; name: string }>('/attachments', { parent: gid });
    for (const a of attachments) {
      const { data } = await client.json<{ data: { download_url: string | null } }>('GET', `/attachments/${a.gid}`);
      if (data.download_url && SUPPORTED.test(a.name)) for await (const _chunk of await downloads.stream(data.download_url));
    }
    const subtasks = await all<{ gid: string }>(`/tasks/${gid}/subtasks`);
    for (const s of subtasks) await readTask(s.gid);
  };
  for (const p of projects) await pool(await all<{ gid: string }>(`/projects/${p.gid}/tasks`), concurrency, (t) => readTask(t.gid));
  await pool(memberships, concurrency, async (m) => {
    for (const t of await all<{ gid: string }>(`/user_task_lists/${m.user_task_list.gid}/tasks`)) await readTask(t.gid);
  });
  return { tasks: seen.size, requests: client.requestCount + downloads.requestCount, ms: performance.now() - t0 };
}

/**
 * `wm-sync`: a full sync of a generated 5,000-task organization from the work-management mock
 * (rate limits off) through the real adapter and engine into a fresh SQLite database, beside a
 * naive crawler (one request per record) reading the same organization: tasks per second, and
 * source requests per task (lower is better).
 */
export async function wmSync(options: Partial<WmSyncOptions> = {}): Promise<BenchmarkResult> {
  const o = { ...DEFAULTS, ...options };
  const started = performance.now();
  const loadBefore = os.loadavg()[0] ?? 0;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-wm-'));
  try {
    // Each side gets a fresh mock of the same seed (the same organization, cold document cache).
    const g0 = performance.now();
    const naiveMock = await startMock(o.tasks);
    const generatedMs = performance.now() - g0;
    let naive: { tasks: number; requests: number; ms: number };
    try {
      naive = await naiveCrawl(naiveMock.base, naiveMock.token, o.concurrency);
    } finally {
      await naiveMock.close();
    }

    const mock = await startMock(o.tasks);
    const db = createDb({ sqlitePath: path.join(work, 'staging.sqlite') });
    let syncMs: number;
    let stats;
    let counts;
    let incremental;
    try {
      await migrateLatest(db);
      const adapter = createWorkManagementAdapter({ baseUrl: mock.base, token: mock.token, concurrency: o.concurrency });
      const deps: SyncDeps = { db, blobs: new FsBlobStore(path.join(work, 'blobs')), logger };
      const s0 = performance.now();
      const summary = await runSync(adapter, deps, { mode: 'full' });
      syncMs = performance.now() - s0;
      if (summary.status !== 'succeeded' || summary.counts.failed > 0) throw new Error(`the sync did not succeed: ${JSON.stringify(summary)}`);
      stats = adapter.lastRun;
      counts = { added: summary.counts.added + summary.identities.added };
      if (!stats || stats.tasks !== mock.orgTasks) throw new Error(`the sync read ${stats?.tasks} tasks of ${mock.orgTasks}`);
      incremental = await incrementalCosts(adapter, deps, mock);
    } finally {
      await db.destroy();
      await mock.close();
    }
    const requests = stats.apiRequests + stats.downloadRequests;
    const full = costOf(stats);
    const { off, on, changed } = incremental;
    const tasksPerSecond = (stats.tasks * 1000) / syncMs;
    const naivePerSecond = (naive.tasks * 1000) / naive.ms;
    return {
      name: 'wm-sync',
      durationMs: performance.now() - started,
      measurements: [
        measurement({
          benchmark: 'wm-sync',
          metric: `full sync of ${stats.tasks} tasks from the mock into fresh SQLite, vs a naive crawl (no staging)`,
          unit: 'tasks/s',
          value: tasksPerSecond,
          baseline: naivePerSecond,
          goal: { on: 'ratio', op: '>=', target: 1 },
        }),
        measurement({
          benchmark: 'wm-sync',
          metric: 'source requests per task (downloads included), vs one request per record',
          unit: 'req/task',
          value: requests / stats.tasks,
          baseline: naive.requests / naive.tasks,
          goal: { on: 'ratio', op: '<=', target: 0.25 },
        }),
        measurement({
          benchmark: 'wm-sync',
          metric: 'requests of an incremental run with access reconciliation (after a change round, a fifth of its events lost), vs a full sync',
          unit: 'requests',
          value: changed.requests,
          baseline: full.requests,
          goal: { on: 'ratio', op: '<=', target: RECONCILED_SHARE_GOAL },
        }),
      ],
      notes: [
        `organization: ${mock.orgTasks} tasks in the synced workspace (seed ${SEED}; ${o.tasks} generated in ${(generatedMs / 1000).toFixed(1)} s), ${stats.projects} projects, ${stats.teams} teams, ${stats.users} users; ${stats.attachments} attachment files`,
        `sync: ${(syncMs / 1000).toFixed(2)} s; ${requests} requests = ${stats.apiRequests} API requests (${stats.batches} batches carrying ${stats.batchedActions} reads, ${stats.directReads} single reads) + ${stats.downloadRequests} downloads; staged ${counts.added} items`,
        `incremental runs, requests (reads against the quota): nothing changed, without reconciliation ${off.requests} (${off.reads}), with it ${on.requests} (${on.reads}); ` +
          `after the change round with a fifth of its events lost, with reconciliation ${changed.requests} (${changed.reads}), ${incremental.unannounced} change(s) no event announced; ` +
          `a full sync ${full.requests} (${full.reads}): reconciliation costs ${(((on.requests - off.requests) / full.requests) * 100).toFixed(1)} % of a full sync's requests (${(((on.reads - off.reads) / full.reads) * 100).toFixed(1)} % of its reads)`,
        `baseline: the naive crawler read ${naive.tasks} tasks with ${naive.requests} requests in ${(naive.ms / 1000).toFixed(2)} s (GET per task, its stories, attachments, subtasks; GET per attachment and its download; memberships per team and project; each member's task list); same concurrency (${o.concurrency}), same HTTP client`,
        "the mock runs in this process (its work is on the same event loop for both); rate and concurrency limits are off, so the figures are about round trips and work, not quota. Batched reads still count one each against the real service's quota",
        loadNote(loadBefore),
      ],
    };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
