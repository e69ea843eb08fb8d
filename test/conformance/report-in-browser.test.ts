import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ConformanceReport } from '../../src/conformance/report/conformance-report';
import { runConformance } from '../../src/conformance/run-conformance';
import { writeReports } from '../../src/conformance/report/write-reports';
import { hasChromium, launchHeadless, type HeadlessBrowser } from '../helpers/headless-browser';
import { startTestGateway, TEST_KEYS } from '../helpers/test-gateway';
import { stageConformanceFixture } from './own-gateway-fixture';
import { inlineParts } from './report-page-parts';

/**
 * The conformance report's HTML page as a person sees it: a real report (the harness run against
 * the real gateway with the conformance fixture staged), opened in headless Chromium. Its script
 * must fill the findings table, filter it, and drive the access explorer, without a console error
 * (the page's Content-Security-Policy would report anything it loads from elsewhere).
 */
jest.setTimeout(120_000);

(hasChromium ? describe : describe.skip)('the conformance report in headless Chromium', () => {
  let report: ConformanceReport;
  let dir: string;
  let browser: HeadlessBrowser;
  let file: string;

  beforeAll(async () => {
    const gw = await startTestGateway('sqlite', { pageSizeDefault: 10 });
    try {
      await stageConformanceFixture(gw);
      report = await runConformance({ baseUrl: gw.url, key: TEST_KEYS[0], profile: 'strict', secondCrawl: false });
    } finally {
      await gw.close();
    }
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'conformance-html-'));
    file = writeReports(report, dir).html;
    browser = await launchHeadless();
  });
  afterAll(async () => {
    await browser?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('shows the verdict, the cards and every check with its counts', async () => {
    const { page, errors } = await browser.open(file);
    expect(await page.textContent('h1 .verdict')).toBe(report.summary.ok ? 'PASS' : 'FAIL');
    expect(await page.locator('.card').count()).toBeGreaterThanOrEqual(8);
    expect(await page.textContent('.cards')).toContain('Checks failing');
    const rows = await page.$$eval('tr[data-check]', (trs) =>
      trs.map((tr) => [
        tr.getAttribute('data-check'),
        ...Array.from(tr.querySelectorAll('td.num'), (td) => (td as { textContent: string | null }).textContent ?? ''),
      ]),
    );
    expect(rows).toEqual(report.checks.map((c) => [c.check, String(c.counts.fail), String(c.counts.warn), String(c.counts.pass)]));
    expect(await page.isVisible('tr[data-check]')).toBe(true);
    expect(errors).toEqual([]);
  });

  it("the findings table is filled by the page's script, filters by severity, by check and by text", async () => {
    const { page, errors } = await browser.open(file);
    const count = () => page.locator('#findings-body tr').count();
    await page.click('button[data-severity="all"]');
    expect(await count()).toBe(report.findings.length);
    await page.click('button[data-severity="pass"]');
    expect(await count()).toBe(report.findings.filter((f) => f.severity === 'pass').length);
    const perCheck = (id: string) => report.findings.filter((f) => f.check === id).length;
    const check = [...report.checks].sort((a, b) => perCheck(b.check) - perCheck(a.check))[0]!;
    expect(perCheck(check.check)).toBeGreaterThan(0);
    await page.click(`tr[data-check="${check.check}"]`);
    expect(await count()).toBe(report.findings.filter((f) => f.check === check.check).length);
    await page.click('#findings-clear');
    await page.click('button[data-severity="all"]');
    await page.fill('#findings-search', check.check);
    const shown = await count();
    expect(shown).toBeGreaterThanOrEqual(report.findings.filter((f) => f.check === check.check).length);
    expect(shown).toBeLessThan(report.findings.length);
    expect(errors).toEqual([]);
  });

  it('the access explorer answers who can see a file and what a user can see', async () => {
    const { page, errors } = await browser.open(file);
    const choices = page.locator('#explorer-choices button');
    expect(await choices.count()).toBe(report.crawl.files.length);
    await choices.first().click();
    expect(((await page.textContent('#explorer-result')) ?? '').length).toBeGreaterThan(20);
    await page.click('button[data-mode="user"]');
    expect(await choices.count()).toBe(report.crawl.users.length);
    const email = String(report.crawl.users.find((u) => typeof u.email === 'string')!.email);
    await page.fill('#explorer-search', email);
    expect(await choices.count()).toBeGreaterThanOrEqual(1);
    await choices.first().click();
    expect(await page.textContent('#explorer-result')).toContain(email);
    const hrefs = await page.$$eval('a[href^="#"]', (as) => as.map((a) => a.getAttribute('href') ?? ''));
    for (const href of hrefs) if (href !== '#') expect([href, await page.locator(href).count()]).toEqual([href, 1]);
    expect(errors).toEqual([]);
  });

  it('holds to its Content-Security-Policy: its own style sheet and script apply (allowed by hash), a changed script is refused', async () => {
    const { page, errors } = await browser.open(file);
    // The test tsconfig has no DOM library: the one window member used, typed here.
    const radius = await page.$eval(
      '.card',
      (el) => (globalThis as unknown as { getComputedStyle(e: unknown): { borderRadius: string } }).getComputedStyle(el).borderRadius,
    );
    expect(radius).toBe('8px');
    expect(await page.textContent('#findings-note')).toMatch(/^\d+ findings?$/); // written by the script
    expect(errors).toEqual([]);

    // The same page with one byte of its script changed: the browser must refuse to run it.
    const html = fs.readFileSync(file, 'utf8');
    const { script } = inlineParts(html);
    const tampered = path.join(dir, 'tampered.html');
    fs.writeFileSync(tampered, html.replace(script, script.replace("'use strict';", "'use strict'; ")));
    const changed = await browser.open(tampered);
    expect(await changed.page.textContent('#findings-note')).toBe('');
    expect(changed.errors.join('\n')).toMatch(/inline script violates the following Content Security Policy directive .*blocked/);
  });
});
