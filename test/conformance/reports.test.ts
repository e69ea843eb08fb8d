import { renderHtmlReport } from '../../src/conformance/report/report-html';
import { renderTerminalReport } from '../../src/conformance/report/report-terminal';
import { renderJsonReport } from '../../src/conformance/report/report-json';
import { terminalSafe } from '../../src/conformance/report/terminal-safe';
import type { ConformanceReport } from '../../src/conformance/report/conformance-report';
import { runConformance } from '../../src/conformance/run-conformance';
import { startBrokenGateway } from './broken-gateway';
import { fakeDocument, staticElementsOf, type FakeElement } from './fake-dom';
import { inlineParts, readAsset, sha256 } from './report-page-parts';

const HOSTILE = '</script><img src=x onerror=alert(1)>"\'&';

function runPage(html: string) {
  const elements = staticElementsOf(html);
  const script = html.slice(html.lastIndexOf('<script>') + '<script>'.length, html.lastIndexOf('</script>'));
  new Function('document', script)(fakeDocument(elements));
  const byId = (id: string) => elements.find((e) => e.attributes.id === id) as FakeElement;
  return { elements, byId };
}

describe('reports', () => {
  let report: ConformanceReport;
  beforeAll(async () => {
    const gw = await startBrokenGateway('user-wildcard');
    try {
      report = await runConformance({ baseUrl: gw.url, key: gw.key, profile: 'strict', secondCrawl: false });
    } finally {
      await gw.close();
    }
    // Values from a hostile gateway end up in names and messages.
    const first = report.crawl.files[0];
    if (first) first.listing.name = HOSTILE;
    report.findings.unshift({ check: 'files.detail', severity: 'fail', message: `bad ${HOSTILE}`, evidence: { url: `http://x/${HOSTILE}`, value: HOSTILE } });
  });

  it('terminal: the verdict, counts, crawl statistics and the worst findings first', () => {
    const text = renderTerminalReport(report, { reportPaths: { html: '/r/conformance-report.html', json: '/r/conformance-report.json' } });
    const lines = text.split('\n');
    expect(lines[0]).toMatch(/^Conformance of http:\/\/127\.0\.0\.1:\d+ \(strict profile, ids percent-encoded\): FAIL$/);
    expect(lines[1]).toMatch(/^ {2}\d+ checks: \d+ pass, \d+ warn, [1-9]\d* fail/);
    expect(text).toMatch(/Latency: p50 [\d.]+ ms, p90 [\d.]+ ms, p99 [\d.]+ ms/);
    expect(text).toMatch(/\d+ requests, [\d.]+ (B|KiB|MiB) in/);
    const firstFinding = lines.findIndex((l) => l.startsWith('Worst findings first'));
    expect(lines[firstFinding + 1]).toMatch(/^ {2}FAIL /);
    expect(text).toContain('FAIL permissions.wildcard');
    expect(text.trimEnd().endsWith('JSON report: /r/conformance-report.json')).toBe(true);
    expect(text).toContain('HTML report: /r/conformance-report.html');
  });

  it('JSON: the whole report round-trips', () => {
    const parsed = JSON.parse(renderJsonReport(report)) as ConformanceReport;
    expect(parsed.summary).toEqual(report.summary);
    expect(parsed.crawl.files).toHaveLength(report.crawl.files.length);
    expect(parsed.stats.latencyMs.p99).toBe(report.stats.latencyMs.p99);
  });

  it('HTML: one self-contained file, everything escaped, nothing loaded from elsewhere', () => {
    const html = renderHtmlReport(report);
    expect(html).not.toContain(HOSTILE);
    expect(html).not.toMatch(/<img/i);
    expect(html.match(/<\/script>/g)).toHaveLength(2); // the data block and the script, nothing smuggled in
    // Outside the data block (where gateway text is inert JSON), no attribute loads anything.
    const markup = html.replace(/<script type="application\/json" id="report-data">[^<]*<\/script>/, '');
    expect(markup).not.toMatch(/\b(?:src|href|action)\s*=/i);
    expect(markup).not.toMatch(/<link\b|@import|url\(/i);
    expect(html).toContain('Content-Security-Policy" content="default-src \'none\'');
    expect(html).toMatch(/<title>Conformance: http:\/\/127\.0\.0\.1:\d+ — FAIL<\/title>/);
    const data = JSON.parse(staticElementsOf(html).find((e) => e.attributes.id === 'report-data')?.textContent ?? '') as {
      access: { files: Array<{ name: string }> };
    };
    expect(data.access.files[0]?.name).toBe(HOSTILE);
  });

  it("HTML: the Content-Security-Policy runs the page's own inline style sheet and script, by their SHA-256, and nothing else", () => {
    const html = renderHtmlReport(report);
    const { policy, style, script } = inlineParts(html);
    expect(policy).toBe(`default-src 'none'; style-src ${sha256(style)}; script-src ${sha256(script)}`);
    expect(policy).not.toContain('unsafe');
    // The inline parts are the asset files, byte for byte (the script: the access computation, then the page's own).
    expect(style).toBe(readAsset('report-page.css'));
    expect(script).toBe(`${readAsset('access-explorer.js')}\n${readAsset('report-page.js')}`);
    // No inline style attribute or event handler either: the policy would block them.
    const markup = html.replace(/<script\b[^>]*>[^]*?<\/script>|<style>[^]*?<\/style>/g, '');
    expect(markup).not.toMatch(/<[^>]*\s(?:style|on\w+)=/i);
  });

  it("HTML: the page's script lists findings and answers access questions both ways", () => {
    const { elements, byId } = runPage(renderHtmlReport(report));
    const rows = byId('findings-body').children;
    expect(rows.length).toBe(report.findings.filter((f) => f.severity !== 'pass').length);
    expect(rows[0]?.textContent).toContain(HOSTILE); // as text, never as markup
    expect(byId('findings-note').textContent).toMatch(/^\d+ findings?$/);

    // Click a check: its findings only.
    elements.find((e) => e.attributes['data-check'] === 'permissions.wildcard')?.dispatch('click');
    expect(byId('findings-body').children.every((r) => r.textContent.includes('permissions.wildcard'))).toBe(true);

    // A file → who can see it (kb-2 is for engineering: ana, ben, cai).
    const search = byId('explorer-search');
    search.value = 'kb-2';
    search.dispatch('input');
    const choice = byId('explorer-choices').children[0];
    choice?.dispatch('click');
    const result = byId('explorer-result').textContent;
    expect(result).toContain('3 active users can see this file.');
    for (const email of ['ana@corp.example', 'ben@corp.example', 'cai@corp.example']) expect(result).toContain(email);
    expect(result).not.toContain('dot@corp.example');

    // A user → what they can see (eve is inactive).
    elements.find((e) => e.attributes['data-mode'] === 'user')?.dispatch('click');
    search.value = 'eve@';
    search.dispatch('input');
    byId('explorer-choices').children[0]?.dispatch('click');
    expect(byId('explorer-result').textContent).toMatch(/INACTIVE.*Inactive: sees nothing/);
  });
});

describe('terminal output', () => {
  it('never passes escape sequences from a gateway through to the terminal', () => {
    expect(terminalSafe('id\u001b]0;pwned\u0007\nFAIL x · ok — fine')).toBe('id\\u001b]0;pwned\\u0007\\u000aFAIL x · ok — fine');
  });
});
