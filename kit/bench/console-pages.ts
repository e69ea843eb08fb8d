import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { getJson, httpGet } from './http-get';
import { loadNote } from './load-note';
import { measurement, type BenchmarkResult, type Measurement } from './report';
import { stageAccess } from './stage-access';
import { stageFiles } from './stage-files';
import { stageRuns } from './stage-runs';
import { AUTH_HEADERS, BENCH_API_KEY, benchPaths, startBenchGateway, type BenchGateway } from './start-bench-gateway';
import { startServeProcess, type ServeProcess } from './start-serve-process';

const FILES = 100_000;
const STAGED_TABLES = ['files', 'file_permissions', 'users', 'people', 'groups', 'group_members', 'sync_runs'];
const USERS = 10_000;
/** Timed requests per endpoint (after WARMUP untimed ones), interleaved round by round with every other endpoint. */
const ROUNDS = 20;
const WARMUP = 2;
/** Issue 32: each console page answers in under 200 ms at 100,000 files and 10,000 users. */
const GOAL_MS = 200;
const ADMIN_KEY = 'bench-console-admin-key-0123456789abcdef';
const ADMIN_HEADERS = { Authorization: `Bearer ${ADMIN_KEY}` };
/** The baseline: a first list page of the contract's API from the same gateway, in the same rounds. */
const BASELINE = '/v1/files?$top=100';

interface Endpoint {
  label: string;
  path: string;
}

interface Page {
  total: number;
}

const median = (sorted: readonly number[]): number => sorted[Math.floor((sorted.length - 1) / 2)] as number;
const p95 = (sorted: readonly number[]): number => sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * 0.95) - 1)] as number;
const q = encodeURIComponent;

/** The last page's offset of an answer of `total` items in pages of `limit`. */
const lastPage = (total: number, limit = 50): number => Math.max(0, Math.floor((total - 1) / limit) * limit);

/**
 * The subjects of the access explorer's rows: the user (of those in the most groups) who sees the
 * most files, a file open to the whole company (`GROUP` everyone: seen by nearly every user), an
 * inactive user; and their answers' last pages, reached by cursor as the console's Next links do.
 */
async function subjects(url: string, gateway: BenchGateway, agent: http.Agent): Promise<Endpoint[]> {
  const api = `${url}/console/api/access`;
  const candidates = (await gateway
    .db('group_members')
    .where({ member_type: 'USER' })
    .groupBy('member_id')
    .orderByRaw('count(*) desc, member_id')
    .limit(10)
    .pluck('member_id')) as string[];
  let user = { id: '', total: -1 };
  for (const id of candidates) {
    const body = await getJson<{ user?: { page: Page } }>(`${api}?user=${q(id)}&limit=1`, agent, ADMIN_HEADERS);
    const total = body.user?.page.total ?? 0;
    if (total > user.total) user = { id, total };
  }
  const file = (await gateway.db('file_permissions').where({ served_id: 'bench:group-everyone' }).orderBy('file_id').first('file_id')) as { file_id: string };
  const fileAnswer = await getJson<{ file?: { usersPage: Page } }>(`${api}?file=${q(file.file_id)}&limit=1`, agent, ADMIN_HEADERS);
  const seenBy = fileAnswer.file?.usersPage.total ?? 0;
  const inactive = (await gateway.db('users').where({ state: 'Inactive' }).orderBy('id').first('id')) as { id: string };
  // The deep pages as the console reaches them: by the cursor (`after`) of the page before the last.
  const before = await getJson<{ user?: { files: Array<{ id: string }> } }>(
    `${api}?user=${q(user.id)}&offset=${lastPage(user.total) - 1}&limit=1`,
    agent,
    ADMIN_HEADERS,
  );
  const userCursor = before.user?.files[0]?.id ?? '';
  const beforeFile = await getJson<{ file?: { users: Array<{ id: string }> } }>(
    `${api}?file=${q(file.file_id)}&offset=${lastPage(seenBy) - 1}&limit=1`,
    agent,
    ADMIN_HEADERS,
  );
  const fileCursor = beforeFile.file?.users[0]?.id ?? '';
  return [
    { label: `access: what-can, user seeing ${user.total} files, first page`, path: `/console/api/access?user=${q(user.id)}` },
    {
      label: `access: what-can, same user, last page (after item ${lastPage(user.total)})`,
      path: `/console/api/access?user=${q(user.id)}&after=${q(userCursor)}`,
    },
    { label: `access: who-can-see, file seen by ${seenBy} users, first page`, path: `/console/api/access?file=${q(file.file_id)}` },
    {
      label: `access: who-can-see, same file, last page (after item ${lastPage(seenBy)})`,
      path: `/console/api/access?file=${q(file.file_id)}&after=${q(fileCursor)}`,
    },
    { label: 'access: what-can, an inactive user (would see)', path: `/console/api/access?user=${q(inactive.id)}` },
  ];
}

async function timed(url: string, agent: http.Agent, headers: Record<string, string>): Promise<number> {
  const t0 = performance.now();
  const res = await httpGet(url, agent, headers);
  const ms = performance.now() - t0;
  if (res.status !== 200) throw new Error(`GET ${url} answered ${res.status}: ${res.body.toString('utf8').slice(0, 300)}`);
  return ms;
}

/**
 * Issue 32's goal for the operator console: every page's JSON endpoint (what its page renders)
 * answers in under 200 ms over 100,000 files and 10,000 users, with nested groups, access lists,
 * inactive users, 400 sync runs (partial successes and failures among them) and blobs. A real
 * `serve` process with CONSOLE_ENABLED over a staging of its own (SQLite, or a schema of its own on
 * `postgresUrl`); each endpoint asked ROUNDS times, round by round, beside the baseline (a first
 * `/v1/files` page of the same gateway). The figure is each endpoint's p95 against the goal; the
 * ratio is to the baseline's p95.
 */
export async function consolePages(postgresUrl?: string): Promise<BenchmarkResult> {
  const started = performance.now();
  const database = postgresUrl ? 'Postgres' : 'SQLite';
  const name = postgresUrl ? 'console-pages-postgres' : 'console-pages';
  const load0 = os.loadavg()[0] ?? 0;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-bench-console-'));
  const gateway = await startBenchGateway({ dir, ...(postgresUrl ? { postgresUrl } : {}) });
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  let server: ServeProcess | undefined;
  try {
    const files = await stageFiles(gateway.db, FILES);
    const access = await stageAccess(gateway, 4242, USERS);
    const runs = await stageRuns(gateway.db);
    // What Postgres's autovacuum does soon after a bulk load (and a live gateway's tables have had
    // long since): statistics for the planner and a visibility map for index-only scans. Timed at
    // once, the freshly written tables had neither, a state a serving gateway is not in for long.
    if (postgresUrl) for (const table of STAGED_TABLES) await gateway.db.raw('vacuum analyze ??', [table]);
    const { sqlitePath, blobDir } = benchPaths(dir);
    const store: Record<string, string> = postgresUrl ? { DATABASE_URL: postgresUrl, DATABASE_SCHEMA: gateway.schema ?? '' } : { SQLITE_PATH: sqlitePath };
    server = await startServeProcess({
      ...store,
      BLOB_DIR: blobDir,
      GATEWAY_API_KEY: BENCH_API_KEY,
      RATE_LIMIT_REQUESTS: '0',
      CONSOLE_ENABLED: 'true',
      CONSOLE_ADMIN_KEY: ADMIN_KEY,
    });
    const endpoints: Endpoint[] = [
      { label: 'sources', path: '/console/api/sources' },
      { label: 'runs', path: '/console/api/runs' },
      { label: 'runs, 500', path: '/console/api/runs?limit=500' },
      { label: 'failing', path: '/console/api/failing' },
      { label: 'queue', path: '/console/api/queue' },
      { label: 'blobs', path: '/console/api/blobs' },
      ...(await subjects(server.url, gateway, agent)),
    ];
    const times = new Map<string, number[]>([[BASELINE, []], ...endpoints.map((e): [string, number[]] => [e.path, []])]);
    for (let round = 0; round < WARMUP + ROUNDS; round += 1) {
      const baseline = await timed(`${server.url}${BASELINE}`, agent, { ...AUTH_HEADERS });
      if (round >= WARMUP) times.get(BASELINE)?.push(baseline);
      for (const e of endpoints) {
        const ms = await timed(`${server.url}${e.path}`, agent, ADMIN_HEADERS);
        if (round >= WARMUP) times.get(e.path)?.push(ms);
      }
    }
    const sorted = (p: string): number[] => [...(times.get(p) ?? [])].sort((a, b) => a - b);
    const base = sorted(BASELINE);
    const notes = [
      `${database}: ${files.count.toLocaleString('en-US')} files, ${access.users.toLocaleString('en-US')} users (${access.inactiveUsers} inactive), ${access.groups} nested groups, ${access.permissions.toLocaleString('en-US')} access entries, ${access.blobs} blobs, ${runs.runs} sync runs (${runs.partial} partial, ${runs.failed} failed); staged in ${((performance.now() - started) / 1000).toFixed(1)} s`,
      `a serve process with CONSOLE_ENABLED; ${ROUNDS} timed requests per endpoint after ${WARMUP} untimed, one at a time over one keep-alive connection, endpoints interleaved round by round`,
      `baseline ${BASELINE}: median ${median(base).toFixed(1)} ms, p95 ${p95(base).toFixed(1)} ms`,
    ];
    const measurements: Measurement[] = [];
    for (const e of endpoints) {
      const list = sorted(e.path);
      notes.push(
        `${e.label} (${e.path}): median ${median(list).toFixed(1)} ms, p95 ${p95(list).toFixed(1)} ms, ${((p95(list) / GOAL_MS) * 100).toFixed(0)} % of the goal`,
      );
      measurements.push(
        measurement({
          benchmark: name,
          metric: `${database}: ${e.label}, p95 (baseline: ${BASELINE} p95)`,
          unit: 'ms',
          value: p95(list),
          baseline: p95(base),
          goal: { on: 'value', op: '<', target: GOAL_MS },
        }),
      );
    }
    notes.push(loadNote(load0));
    return { name, durationMs: performance.now() - started, measurements, notes };
  } finally {
    agent.destroy();
    await server?.stop();
    await gateway.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
