import crypto from 'node:crypto';
import pino from 'pino';
import { listenOnLoopback } from 'content-gateway/lib';
import { feedbackInteraction, questionInteraction } from '../src/mocks/platform/answers/interactions';
import { platformUserId, type PluginResource } from '../src/mocks/platform/answers/plugin-resources';
import { createPlatformSimulator, type PlatformSimulator } from '../src/mocks/platform/create-platform-simulator';
import { DataApiClient } from 'content-gateway/platform';
import { GatewayFilesClient } from 'content-gateway/platform';
import { computeUsage } from 'content-gateway/platform';
import type { UsageReport } from 'content-gateway/platform';
import { measurement, type BenchmarkResult } from './report';
import { seededRandom } from './seeded-random';
import { stageFiles } from './stage-files';
import { BENCH_API_KEY, startBenchGateway } from './start-bench-gateway';

export interface UsageBenchOptions {
  files: number;
  records: number;
  /** Share of the gateway's files no answer ever surfaced. */
  unused: number;
}

const DEFAULTS: UsageBenchOptions = { files: 10_000, records: 100_000, unused: 0.3 };
/** Records an answer surfaces together (one question interaction). */
const PER_ANSWER = 5;
const AT = '2026-01-01T00:00:00.000Z';

/**
 * `records` plugin resources over the used files, Zipf-skewed (a few files surfaced thousands of
 * times, most a handful), 40 % cited, five to an answer; 2 % of answers rated.
 */
function seedPlatform(sim: PlatformSimulator, ids: readonly string[], o: UsageBenchOptions): void {
  const random = seededRandom(7);
  const used = ids.filter(() => random() >= o.unused);
  const weights = used.map((_, rank) => 1 / (rank + 1));
  const total = weights.reduce((a, b) => a + b, 0);
  const cumulative: number[] = [];
  weights.reduce((acc, w) => (cumulative.push(acc + w / total), acc + w / total), 0);
  const pick = (): string => {
    const r = random();
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if ((cumulative[mid] as number) < r) lo = mid + 1;
      else hi = mid;
    }
    return used[lo] as string;
  };
  const { pluginResources, store } = sim.context;
  for (let answer = 0; answer * PER_ANSWER < o.records; answer++) {
    const email = `person${answer % 500}@example.com`;
    const question = questionInteraction({ email, conversationId: `conv_${answer}`, question: `question ${answer}`, at: AT });
    store.interactions.push(question);
    for (let k = 0; k < PER_ANSWER && answer * PER_ANSWER + k < o.records; k++) {
      const file = pick();
      const record: PluginResource = {
        id: `pr${answer}-${k}`,
        resource_id: String(answer * PER_ANSWER + k),
        type: 'RESOURCE_TYPE_KNOWLEDGE',
        plugin_call_id: `pc${answer}`,
        interaction_id: question.id,
        user_id: platformUserId(email),
        conversation_id: `conv_${answer}`,
        detail: {
          domain: 'enterprise-search',
          external_resource_id: file,
          name: file,
          snippet: '',
          source: 'bench',
          type: 'text/html',
          url: `https://intranet.example/${file}`,
        },
        cited: random() < 0.4,
        created_time: AT,
        last_updated_time: AT,
      };
      pluginResources.push(record);
    }
    if (random() < 0.02)
      store.interactions.push(
        feedbackInteraction({
          email,
          conversationId: `conv_${answer}`,
          messageId: `msg_${answer}`,
          parent: question.id,
          rating: random() < 0.7 ? 'helpful' : 'unhelpful',
          comment: null,
          at: AT,
        }),
      );
  }
}

const figures = (r: UsageReport): string => JSON.stringify(r.files.map((f) => [f.id, f.surfaced, f.cited, f.helpful, f.unhelpful]));

/**
 * `usage` over a gateway of `files` files and a platform holding `records` plugin resources: the
 * platform requests it makes and its wall time, against the naive way (a count per file, and a
 * cited count per surfaced file) in the same run, on the same simulator. The simulator's rate
 * limit is off so wall time measures the work; the time each would take paced under a limit of
 * 600 requests a minute follows from the request counts.
 */
export async function usageBench(options: Partial<UsageBenchOptions> = {}): Promise<BenchmarkResult> {
  const o = { ...DEFAULTS, ...options };
  const started = performance.now();
  const gw = await startBenchGateway();
  const sim = createPlatformSimulator({ hostility: { rateLimitPerMinute: 0 }, credentials: { dataApiKey: crypto.randomBytes(16).toString('hex') } });
  const server = await listenOnLoopback(sim.app);
  try {
    await stageFiles(gw.db, o.files);
    const ids = (await gw.db('files').orderBy('id').pluck('id')) as string[];
    seedPlatform(sim, ids, o);
    const logger = pino({ level: 'silent' });
    const run = async (strategy: 'batched' | 'per-file') => {
      const t0 = performance.now();
      const data = new DataApiClient({ baseUrl: `${server.url}/export/v1/records`, auth: { kind: 'api-key', key: sim.credentials.dataApiKey }, logger });
      const report = await computeUsage({
        gateway: new GatewayFilesClient({ baseUrl: gw.url, key: BENCH_API_KEY, logger }),
        gatewayUrl: gw.url,
        data,
        strategy,
      });
      return { report, ms: performance.now() - t0 };
    };
    const batched = await run('batched');
    const naive = await run('per-file');
    if (figures(batched.report) !== figures(naive.report)) throw new Error('batched and per-file usage disagree');
    const b = batched.report;
    const at600 = (requests: number) => `${(requests / 600).toFixed(1)} min`;
    return {
      name: 'usage',
      durationMs: performance.now() - started,
      measurements: [
        measurement({
          benchmark: 'usage',
          metric: `platform requests (${o.files} files, ${o.records} records)`,
          unit: 'requests',
          value: b.requests.platform,
          baseline: naive.report.requests.platform,
          goal: { on: 'ratio', op: '<=', target: 0.1 },
        }),
        measurement({
          benchmark: 'usage',
          metric: 'wall time (rate limit off)',
          unit: 'ms',
          value: batched.ms,
          baseline: naive.ms,
          goal: { on: 'ratio', op: '<=', target: 0.5 },
        }),
      ],
      notes: [
        `${b.totals.activeFiles} active files, ${b.totals.surfacedFiles} surfaced, ${b.totals.citedFiles} cited, ${b.neverSurfaced.length} never surfaced; ${b.totals.platformRecords} records, ${b.totals.ratings} ratings; batched and per-file figures identical`,
        `batched: ${b.counting.batches} or-batches of ≤100 ids, ${b.counting.emptyBatches} settled by one count, ${b.counting.listed} listed, ${b.counting.split} split; ${b.requests.gateway} gateway requests`,
        `paced at 600 requests a minute (the simulator's default limit) the platform side would take ${at600(b.requests.platform)} batched and ${at600(naive.report.requests.platform)} per file`,
      ],
    };
  } finally {
    sim.close();
    await server.close();
    await gw.close();
  }
}
