import fs from 'node:fs';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { ADMIN_BEARER, startConsoleGateway, type ConsoleGateway } from '../helpers/console-gateway';
import { hasChromium, launchHeadless, type HeadlessBrowser } from '../helpers/headless-browser';
import { databaseKinds } from '../helpers/test-databases';

/** Screenshots a reviewer can look at (`test-output/console/`, not committed). */
const SHOTS = path.resolve(__dirname, '../../test-output/console');
const AXE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown }>;
}

/** axe-core's serious and critical violations on the page (injected over the DevTools protocol: the CSP allows no inline script). */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE);
  const violations = (await page.evaluate('axe.run(document).then((r) => r.violations)')) as AxeViolation[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} ${JSON.stringify(v.nodes.map((n) => n.target))}`);
}

(hasChromium ? describe.each(databaseKinds) : describe.skip.each(databaseKinds))('console pages 5 and 6 in headless Chromium (%s)', (kind) => {
  let gw: ConsoleGateway;
  let browser: HeadlessBrowser;
  let page: Page;
  const errors: string[] = [];

  beforeAll(async () => {
    fs.mkdirSync(SHOTS, { recursive: true });
    gw = await startConsoleGateway(kind, { staging: 'demo' });
    browser = await launchHeadless();
    await browser.context.setExtraHTTPHeaders(ADMIN_BEARER);
    page = await browser.context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`${m.text()} ${m.location().url}`);
    });
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('response', (r) => {
      if (r.status() >= 400) errors.push(`${r.status()} ${r.url()}`);
    });
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await gw?.close();
  });

  it('answers an explorer question through the search form (htmx swaps the answer in), showing the grant path', async () => {
    await page.goto(`${gw.url}/console/access`);
    await page.fill('#explorer-user', 'ana.souza@northwind.example');
    await page.click('form[aria-label="What can a user see"] button');
    const answer = page.locator('#explorer-answer');
    await answer.locator('text=Can see').waitFor();
    const row = answer.locator('tr', { hasText: 'demo:company/expense-policy.html' });
    expect(await row.innerText()).toMatch(/GROUP demo:all-staff › All Staff › Engineering › Platform Team/);
    expect(page.url()).toContain('user=ana.souza%40northwind.example');
    expect(await page.locator('h1').count()).toBe(1); // swapped in place, not a page inside the page
    await page.screenshot({ path: path.join(SHOTS, `access-user-${kind}.png`), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    // From the answer, a file's own question, as a plain link.
    await row.locator('a').click();
    await page.locator('#explorer-answer h2').waitFor();
    expect(await page.locator('#explorer-answer').innerText()).toMatch(/ana\.souza@northwind\.example[\s\S]*GROUP demo:all-staff/);
    await page.screenshot({ path: path.join(SHOTS, `access-file-${kind}.png`), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('pages a long answer with the Next link: htmx swaps in the page after the cursor, the address follows, every file once', async () => {
    await page.goto(`${gw.url}/console/access?user=${encodeURIComponent('ana.souza@northwind.example')}&limit=4`);
    const fileIds = () => page.locator('#explorer-answer tbody th small code').allInnerTexts();
    const seen = [...(await fileIds())];
    await page.evaluate('window.stillThisDocument = true'); // lost if a link reloaded the page instead of htmx swapping
    for (let pages = 1; pages < 10; pages += 1) {
      const next = page.locator('#explorer-answer a[rel="next"]');
      if ((await next.count()) === 0) break;
      const last = seen[seen.length - 1] as string;
      await next.click();
      await page.waitForURL((url) => url.searchParams.get('after') === last);
      await page.locator('#explorer-answer', { hasText: `after ${last}` }).waitFor();
      seen.push(...(await fileIds()));
    }
    expect(seen.length).toBe(9);
    expect(new Set(seen).size).toBe(9);
    expect(await page.evaluate('window.stillThisDocument === true')).toBe(true);
    expect(await page.locator('h1').count()).toBe(1);
    await page.screenshot({ path: path.join(SHOTS, `access-next-page-${kind}.png`), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  });

  it('renders the blobs page, verifies from the button, and passes axe', async () => {
    await page.goto(`${gw.url}/console/blobs`);
    expect(await page.locator('main').innerText()).toContain('Not verified since this gateway started');
    await page.click('form[action$="/api/blobs/verify"] button');
    await page.locator('#action-result', { hasText: '0 missing, 0 corrupt' }).waitFor();
    await page.reload();
    expect(await page.locator('main').innerText()).toMatch(/0 missing, 0 corrupt/);
    await page.screenshot({ path: path.join(SHOTS, `blobs-${kind}.png`), fullPage: true });
    expect(await seriousViolations(page)).toEqual([]);
    expect(errors).toEqual([]);
  });
});
