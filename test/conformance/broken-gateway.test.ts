import { severityCap } from '../../src/conformance/checks/check-catalog';
import { PROFILES, type Profile } from '../../src/conformance/conformance-profile';
import type { ConformanceReport } from '../../src/conformance/report/conformance-report';
import { runConformance } from '../../src/conformance/run-conformance';
import { DEFECTS, startBrokenGateway, type Defect } from './broken-gateway';

/** The check that must name each planted defect. */
const CAUGHT_BY: Record<Defect, string> = {
  'flattened-members': 'groups.not-flattened',
  'user-wildcard': 'permissions.wildcard',
  'missing-emails': 'users.email',
  'duplicate-ids': 'paging.no-duplicates',
  'wrong-checksum': 'files.checksum-sha256',
  'bad-top-500': 'robustness.malformed-top',
  'html-body-missing': 'files.html-body',
  'static-rate-limit': 'rate-limit.not-static',
  'always-now-timestamp': 'files.timestamp-stable',
};

/**
 * The second listing follows the first at once: the fixture's timestamps carry milliseconds, so an
 * always-"now" timestamp moves between the two without the 1.1 s gap a gateway stamping whole
 * seconds needs.
 */
async function conformanceOf(defect?: Defect, profile: Profile = 'strict'): Promise<ConformanceReport> {
  const gw = await startBrokenGateway(defect);
  try {
    return await runConformance({ baseUrl: gw.url, key: gw.key, profile, minCrawlGapMs: 5 });
  } finally {
    await gw.close();
  }
}

const notPassing = (r: ConformanceReport) => r.findings.filter((f) => f.severity !== 'pass').map((f) => `${f.severity} ${f.check}: ${f.message}`);

describe('conformance against a deliberately broken gateway', () => {
  it.each(PROFILES)('passes the fixture clean when it has no defect (the checks are not trigger-happy): %s profile', async (profile) => {
    const report = await conformanceOf(undefined, profile);
    expect(notPassing(report)).toEqual([]);
    expect(report.summary.ok).toBe(true);
    expect(report.summary.checks.fail).toBe(0);
    // Everything was exercised: pages, nested groups, binaries, rate-limit headers, probes.
    expect(report.crawl.files).toHaveLength(12);
    expect(report.crawl.listings.find((l) => l.collection === 'files')?.pages).toBe(3);
    expect(report.crawl.files.filter((f) => f.download?.status === 200)).toHaveLength(4);
    expect(report.recorded.rateLimits.length).toBeGreaterThan(50);
    expect(report.recorded.probes.length).toBeGreaterThan(50);
  });

  // Every defect fails under strict; under platform it is as bad as the platform's rule makes it
  // (a USER * entry only draws the platform validator's warning).
  it.each(PROFILES.flatMap((profile) => DEFECTS.map((d) => [d, CAUGHT_BY[d], profile] as const)))(
    'catches %s with %s (%s profile)',
    async (defect, check, profile) => {
      const report = await conformanceOf(defect, profile);
      // Stated here, not read from the catalog, so a catalog that softens a check makes this fail.
      const severity = profile === 'platform' && defect === 'user-wildcard' ? 'warn' : 'fail';
      expect(severityCap(check, profile)).toBe(severity);
      const named = report.findings.filter((f) => f.check === check && f.severity === severity);
      expect(named.length).toBeGreaterThan(0);
      expect(report.checks.find((c) => c.check === check)?.severity).toBe(severity);
      expect(report.summary.ok).toBe(severity !== 'fail');
      // The evidence points at where it was seen.
      expect(named[0]?.evidence.url ?? named[0]?.evidence.value).toBeTruthy();
    },
  );

  it('passes clean with the bare key too (the probes then try "Bearer <key>")', async () => {
    const gw = await startBrokenGateway();
    try {
      const report = await runConformance({ baseUrl: gw.url, key: gw.key, profile: 'strict', authForm: 'bare', secondCrawl: false, oddTop: 0 });
      expect(notPassing(report)).toEqual([]);
      expect(report.recorded.probes.filter((p) => p.check === 'auth.header-forms').map((p) => p.description)).toEqual(
        Array(3).fill('"Bearer <key>" in Authorization (the crawl used the other form)'),
      );
    } finally {
      await gw.close();
    }
  });

  it('names only the planted defect for most defects (findings stay specific)', async () => {
    const report = await conformanceOf('wrong-checksum');
    expect([...new Set(report.findings.filter((f) => f.severity !== 'pass').map((f) => f.check))]).toEqual(['files.checksum-sha256']);
    const finding = report.findings.find((f) => f.check === 'files.checksum-sha256' && f.severity === 'fail');
    expect(finding?.evidence).toEqual({
      url: expect.stringMatching(/\/v1\/files\/doc-\d\.\w+\/download$/),
      field: 'Checksum-SHA256',
      value: expect.stringMatching(/^[0-9a-f]{64}$/),
    });
  });
});
