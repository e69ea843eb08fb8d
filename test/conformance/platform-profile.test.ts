import type { ConformanceReport } from '../../src/conformance/report/conformance-report';
import { runConformance } from '../../src/conformance/run-conformance';
import { startPlatformSampleGateway, type PlatformSampleGateway, type PlatformSampleGatewayOptions } from './platform-sample-gateway';

const notPassing = (r: ConformanceReport) => r.findings.filter((f) => f.severity !== 'pass');

async function conformanceOf(options: PlatformSampleGatewayOptions, profile: 'platform' | 'strict', rawIds = false): Promise<ConformanceReport> {
  const gw: PlatformSampleGateway = await startPlatformSampleGateway(options);
  try {
    return await runConformance({ baseUrl: gw.url, key: gw.key, profile, rawIds, minCrawlGapMs: 0 });
  } finally {
    await gw.close();
  }
}

describe("the platform profile on a gateway written the platform's way", () => {
  it("reports exactly the sample's three real defects, each with evidence, and nothing else", async () => {
    const report = await conformanceOf({}, 'platform');
    const found = notPassing(report).map((f) => `${f.severity} ${f.check}: ${f.message}`);
    expect(found).toEqual([
      'fail files.size-matches: File kb-002: content.size says 245760, 48 bytes downloaded.',
      'fail files.size-matches: File kb-004: content.size says 4096, 44 bytes downloaded.',
      'fail files.size-matches: File kb-006: content.size says 98304, 56 bytes downloaded.',
      'fail files.size-matches: File kb-008: content.size says 1048576, 39 bytes downloaded.',
      expect.stringMatching(
        /^fail robustness\.malformed-top: \$top=-1: answered 200, but the listing it starts never lists 1 of the files the crawl found \(e\.g\. kb-008\)/,
      ),
      expect.stringMatching(
        /^fail robustness\.malformed-top: \$top=0: answered 200, and following its @odata\.nextLink never ends — http:\/\/127\.0\.0\.1:\d+\/v1\/files\?\$top=0&\$skip=0 links back to a page already read/,
      ),
    ]);
    for (const f of notPassing(report)) expect(f.evidence.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1\/files/);
    expect(report.checks.find((c) => c.check === 'files.size-matches')?.rule).toMatch(/\[GW-OAS\]/);
  });

  it('passes clean, with no warning, once the three defects are fixed — ids sent encoded or raw', async () => {
    for (const rawIds of [false, true]) {
      const report = await conformanceOf({ defects: false }, 'platform', rawIds);
      expect(notPassing(report).map((f) => `${f.severity} ${f.check}: ${f.message}`)).toEqual([]);
      expect(report.crawl.files).toHaveLength(8);
      expect(report.crawl.files.filter((f) => f.download?.status === 200)).toHaveLength(4);
    }
  });

  it('the strict profile still holds the same gateway to our own contract', async () => {
    const report = await conformanceOf({ defects: false }, 'strict');
    const failing = new Set(
      notPassing(report)
        .filter((f) => f.severity === 'fail')
        .map((f) => f.check),
    );
    // Our contract requires ETag/Last-Modified/Content-Disposition, `status`, `state`, the envelope
    // without extra fields, and refuses a malformed $top.
    expect([...failing]).toEqual(expect.arrayContaining(['contract.responses', 'robustness.malformed-top']));
    const messages = notPassing(report)
      .map((f) => f.message)
      .join('\n');
    expect(messages).toMatch(/the ETag header is missing/);
    expect(messages).toMatch(/body\/value must have required property 'status'/);
    expect(messages).toMatch(/must NOT have additional properties {"additionalProperty":"children_url"}/);
  });

  it('a 502 EXTERNAL_REST_ERROR from a failing source is a crawl failure, not a contract violation', async () => {
    const report = await conformanceOf({ defects: false, failSource: 'members' }, 'platform');
    const bad = notPassing(report);
    expect(bad.filter((f) => f.check.startsWith('contract.'))).toEqual([]);
    expect(bad.map((f) => f.check)).toContain('crawl.endpoints');
  });
});
