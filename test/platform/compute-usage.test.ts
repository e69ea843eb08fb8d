import { computeUsage } from '../../src/platform/usage/compute-usage';
import type { UsageReport } from '../../src/platform/usage/usage-report';
import { databaseKinds } from '../helpers/test-databases';
import { simulatedSleep } from './platform-fixtures';
import { usageScenario, type UsageScenario } from './usage-scenario';

/** Per-file figures of a report, for comparison with the oracle. */
const figures = (report: UsageReport) =>
  new Map(
    report.files
      .filter((f) => f.surfaced > 0)
      .map((f) => [f.id, { id: f.id, surfaced: f.surfaced, cited: f.cited, helpful: f.helpful, unhelpful: f.unhelpful }]),
  );

describe.each(databaseKinds)('usage (%s staging)', (kind) => {
  let s: UsageScenario;
  beforeAll(async () => {
    s = await usageScenario(kind);
  }, 120_000);
  afterAll(() => s?.close());

  const run = (extra: Partial<Parameters<typeof computeUsage>[0]> = {}) =>
    computeUsage({ gateway: s.gatewayClient(), gatewayUrl: s.gw.url, data: s.dataClient(), ...extra });

  it('per file: surfaced, cited, helpful and unhelpful exactly as the platform recorded them; never-surfaced and stale citations from the gateway', async () => {
    const report = await run({ scope: `detail/source eq '${s.gw.url}'` });
    const expected = s.expected();
    expect(figures(report)).toEqual(expected);
    expect(report.totals.ratings).toBe(s.p.sim.context.store.feedback.length);
    expect(report.totals.helpful + report.totals.unhelpful).toBeGreaterThan(0);
    expect(report.totals.platformRecords).toBe(s.p.sim.context.pluginResources.length);
    const listed = (await s.gw.get('/v1/files?$top=1000', { Authorization: 'Bearer test-key-primary-0123456789abcdef' })).body.value as Array<{
      id: string;
      status?: string;
    }>;
    const active = listed.filter((f) => f.status !== 'deleted').map((f) => f.id);
    expect(report.neverSurfaced.sort()).toEqual(active.filter((id) => !expected.has(id)).sort());
    expect(report.neverSurfaced.length).toBeGreaterThan(0);
    expect(report.staleCitations.map((f) => [f.id, f.status]).sort()).toEqual(
      [
        [s.purged, 'missing'],
        [s.tombstoned, 'deleted'],
      ].sort(),
    );
    expect(report.missingChecked).toBe(true);
    expect(report.files.map((f) => f.cited)).toEqual([...report.files.map((f) => f.cited)].sort((a, b) => b - a));
  });

  it("without a scope the purged file cannot be told from other connectors' records: only the tombstone is stale, and it says so", async () => {
    const report = await run();
    expect(report.missingChecked).toBe(false);
    expect(report.staleCitations.map((f) => f.id)).toEqual([s.tombstoned]);
    expect(report.totals.platformRecords).toBeGreaterThan(report.totals.surfaced);
  });

  it('batched, split, listed or per-file, the figures are the same; batched asks the platform far less', async () => {
    const naive = await run({ strategy: 'per-file' });
    const batched = await run();
    expect(figures(batched)).toEqual(figures(naive));
    expect(batched.requests.platform * 3).toBeLessThan(naive.requests.platform);
    expect(batched.counting.batches).toBeGreaterThan(0);
    // Tiny batches and pages of 2 force every path: empty batches, listing and splitting.
    await s.p.admin('/settings', { method: 'PATCH', body: { dataPageSize: 2 } });
    try {
      const small = await run({ budget: { maxChars: 6000, maxTerms: 6 } });
      const tiny = await run({ budget: { maxChars: 6000, maxTerms: 1 } });
      expect(figures(small)).toEqual(figures(naive));
      expect(figures(tiny)).toEqual(figures(naive));
      expect([tiny.counting.emptyBatches > 0, small.counting.listed > 0, small.counting.split > 0]).toEqual([true, true, true]);
    } finally {
      await s.p.admin('/settings', { method: 'PATCH', body: { dataPageSize: 100 } });
    }
  });

  it("under the platform's rate limit and injected 5xx the figures do not change", async () => {
    const clean = await run();
    s.p.sim.setHostility({ rateLimitPerMinute: { data: 5 }, faultRate: 0.2, seed: 'usage' });
    try {
      const clock = simulatedSleep(s.p);
      const hostile = await run({ strategy: 'per-file', data: s.dataClient({ sleep: clock.sleep, random: () => 0 }) });
      expect(figures(hostile)).toEqual(figures(clean));
      expect(clock.waits.length).toBeGreaterThan(0);
      expect(clock.waits.some((ms) => ms >= 1000)).toBe(true); // a 429's Retry-After
    } finally {
      s.p.sim.setHostility({ rateLimitPerMinute: 600, faultRate: 0 });
    }
  });
});
