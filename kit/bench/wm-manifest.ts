import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import {
  createDb,
  createRestAdapter,
  createWorkManagementAdapter,
  FsBlobStore,
  migrateLatest,
  restConfigFromEnv,
  runSync,
  type Adapter,
} from 'content-gateway';
import { listenOnLoopback } from 'content-gateway/lib';
import { createWorkManagementMock } from '../src/mocks/work-management/create-mock-server';
import { loadNote } from './load-note';
import { measurement, type BenchmarkResult } from './report';

const SEED = 'wm-sync-bench';
const TASKS = 2_000;
const CONCURRENCY = 4;
const MANIFEST = path.join(__dirname, '../../manifests/work-management.yaml');
const logger = pino({ level: 'silent' });

interface SideResult {
  tasks: number;
  files: number;
  requests: number;
  ms: number;
  /** Requests of an incremental run right after, nothing changed. */
  incrementalRequests: number;
}

/** A full sync of a fresh mock of the same seed (rate limits off) into a fresh SQLite database, by the adapter `make` builds. */
async function side(
  work: string,
  label: string,
  make: (base: string, token: string, workspace: string) => { adapter: Adapter; requests: () => number },
): Promise<SideResult> {
  const mock = createWorkManagementMock({ seed: SEED, size: TASKS, hostility: { rateLimitPerMinute: 0, maxConcurrentReads: 0, maxConcurrentWrites: 0 } });
  const server = await listenOnLoopback(mock.app);
  const db = createDb({ sqlitePath: path.join(work, `${label}.sqlite`) });
  try {
    await migrateLatest(db);
    const { adapter, requests } = make(`${server.url}/api/1.0`, mock.token, mock.organization.organization);
    const t0 = performance.now();
    const summary = await runSync(adapter, { db, blobs: new FsBlobStore(path.join(work, `${label}-blobs`)), logger }, { mode: 'full' });
    const ms = performance.now() - t0;
    if (summary.status !== 'succeeded' || summary.counts.failed > 0)
      throw new Error(`${label}: the sync did not succeed: ${JSON.stringify(summary.error ?? summary.failures.slice(0, 3))}`);
    const fullRequests = requests();
    const again = await runSync(adapter, { db, blobs: new FsBlobStore(path.join(work, `${label}-blobs`)), logger }, { mode: 'auto' });
    if (again.status !== 'succeeded' || again.mode !== 'incremental')
      throw new Error(`${label}: the incremental sync did not succeed: ${JSON.stringify(again.error)}`);
    const incrementalRequests = requests();
    const rows = (await db('files').where({ source: adapter.name, status: 'active' }).select('native_id')) as Array<{ native_id: string }>;
    return { tasks: rows.filter((r) => r.native_id.startsWith('task:')).length, files: rows.length, requests: fullRequests, ms, incrementalRequests };
  } finally {
    await db.destroy();
    await server.close();
  }
}

/**
 * `wm-manifest`: the work-management manifest (`manifests/work-management.yaml`, the generic
 * `rest` adapter) against the hand-written work-management adapter, the same generated
 * organization (a fresh mock of the same seed each), the same engine, same concurrency: tasks per
 * second (goal ≥ 0.5 of the hand-written) and source requests (goal ≤ 1.5x).
 */
export async function wmManifest(): Promise<BenchmarkResult> {
  const started = performance.now();
  const loadBefore = os.loadavg()[0] ?? 0;
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-wm-manifest-'));
  try {
    const hand = await side(work, 'hand', (base, token) => {
      const adapter = createWorkManagementAdapter({ baseUrl: base, token, concurrency: CONCURRENCY });
      return { adapter, requests: () => (adapter.lastRun ? adapter.lastRun.apiRequests + adapter.lastRun.downloadRequests : 0) };
    });
    const manifest = await side(work, 'manifest', (base, token, workspace) => {
      const env = { REST_MANIFEST: MANIFEST, WM_BASE_URL: base, WM_TOKEN: token, WM_WORKSPACE: workspace };
      const config = restConfigFromEnv(env);
      const adapter = createRestAdapter({ name: config.name, loaded: config.loaded, env });
      return { adapter, requests: () => adapter.lastRun?.requests ?? 0 };
    });
    return {
      name: 'wm-manifest',
      durationMs: performance.now() - started,
      measurements: [
        measurement({
          benchmark: 'wm-manifest',
          metric: `full sync through manifests/work-management.yaml, vs the hand-written adapter (${hand.tasks} tasks)`,
          unit: 'tasks/s',
          value: (manifest.tasks * 1000) / manifest.ms,
          baseline: (hand.tasks * 1000) / hand.ms,
          goal: { on: 'ratio', op: '>=', target: 0.5 },
        }),
        measurement({
          benchmark: 'wm-manifest',
          metric: 'source requests of a full sync (downloads included), manifest vs hand-written',
          unit: 'requests',
          value: manifest.requests,
          baseline: hand.requests,
          goal: { on: 'ratio', op: '<=', target: 1.5 },
        }),
      ],
      notes: [
        `hand-written: ${hand.tasks} tasks, ${hand.files} files in ${(hand.ms / 1000).toFixed(2)} s, ${hand.requests} requests (batched reads count once)`,
        `manifest: ${manifest.tasks} tasks, ${manifest.files} files in ${(manifest.ms / 1000).toFixed(2)} s, ${manifest.requests} requests (attachment listings in batch calls; tasks in no project and their attachments are not read: the manifest's documented limits)`,
        `an incremental run right after, nothing changed: manifest ${manifest.incrementalRequests} requests, hand-written ${hand.incrementalRequests} (with its default access reconciliation)`,
        `seed ${SEED}, ${TASKS} generated tasks, concurrency ${CONCURRENCY}; the mock runs in this process, rate and concurrency limits off`,
        loadNote(loadBefore),
      ],
    };
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
