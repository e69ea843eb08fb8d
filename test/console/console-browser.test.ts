import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
import { CHROMIUM_PATH, hasChromium } from '../helpers/headless-browser';
import { databaseKinds } from '../helpers/test-databases';
import { ADMIN_BEARER, ADMIN_KEY, startConsoleGateway, type ConsoleGateway } from '../helpers/console-gateway';

/**
 * The console in a real browser (Debian's Chromium, headless, driven by playwright-core): each
 * page renders over staging a real sync filled, with no console error (a CSP violation is one),
 * passes axe-core with no serious or critical violation, and is photographed into
 * test-output/console-screenshots/; an action works through htmx with its CSRF token, and is
 * refused without it.
 */
jest.setTimeout(180_000);

const SCREENSHOTS = path.join(__dirname, '../../test-output/console-screenshots');
const AXE_SOURCE = fs.readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');
const PAGES = [
  { path: 'sources', heading: 'Sources', shows: 'partial' },
  { path: 'runs', heading: 'Runs', shows: 'partial success' },
  { path: 'failing', heading: 'Failing items', shows: 'team/plan.html' },
  { path: 'queue', heading: 'Schedules and queue', shows: 'Runs under way' },
];

const suite = hasChromium ? describe : describe.skip;
if (!hasChromium) console.warn(`[console tests] ${CHROMIUM_PATH} is absent: the console's browser tests are SKIPPED.`);

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: Array<{ target: unknown }>;
}

/** axe-core's violations of the page, injected by the test driver (the page's CSP allows no inline script, rightly). */
async function axeViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  // A string: evaluated in the page, where `axe` and `document` are (this file is compiled without DOM types).
  return page.evaluate<AxeViolation[]>("axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)");
}

suite.each(databaseKinds)('the console in Chromium, on %s', (kind) => {
  let gw: ConsoleGateway;
  let context: BrowserContext;
  let profile: string;
  const errors: string[] = [];
  beforeAll(async () => {
    gw = await startConsoleGateway(kind);
    profile = fs.mkdtempSync(path.join(os.tmpdir(), 'chromium-console-'));
    fs.mkdirSync(SCREENSHOTS, { recursive: true });
    context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      viewport: { width: 1280, height: 900 },
      httpCredentials: { username: 'operator', password: ADMIN_KEY },
      args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--no-first-run'],
    });
  });
  afterAll(async () => {
    await context?.close();
    if (profile) fs.rmSync(profile, { recursive: true, force: true });
    await gw?.close();
  });

  async function open(pagePath: string): Promise<Page> {
    const page = await context.newPage();
    page.on('console', (m) => {
      if (m.type() === 'error') errors.push(`${pagePath}: ${m.text()}`);
    });
    page.on('pageerror', (e) => errors.push(`${pagePath}: ${String(e)}`));
    const res = await page.goto(`${gw.url}/console/${pagePath}`);
    expect(res?.status()).toBe(200);
    return page;
  }

  it.each(PAGES)(
    'renders $path with htmx loaded, no console error, no serious accessibility violation, and a screenshot',
    async ({ path: pagePath, heading, shows }) => {
      const page = await open(pagePath);
      expect(await page.locator('h1').textContent()).toBe(heading);
      expect(await page.locator('main').textContent()).toContain(shows);
      // htmx ran (its script came from the gateway, under the CSP).
      expect(await page.evaluate('typeof htmx')).toBe('object');
      const serious = (await axeViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
      expect(serious.map((v) => `${v.id}: ${v.help} (${v.nodes.length})`)).toEqual([]);
      await page.screenshot({ path: path.join(SCREENSHOTS, `${kind}-${pagePath}.png`), fullPage: true });
      expect(errors).toEqual([]);
      await page.close();
    },
  );

  it('runs "Run a full sync" through htmx with its CSRF token; the same post without the token is refused', async () => {
    const page = await open('failing');
    const refused = await page.evaluate(async () => {
      const res = await fetch('/console/api/failing/full-sync', { method: 'POST', body: new URLSearchParams({ source: 'filesystem' }) });
      return res.status;
    });
    expect(refused).toBe(403);
    await page.getByRole('button', { name: 'Run a full sync of filesystem' }).click();
    const status = page.locator('#action-result p[role="status"]');
    await status.waitFor();
    expect(await status.textContent()).toMatch(kind === 'sqlite' ? /^Started a full sync of filesystem/ : /sync\.filesystem\.full/);
    await page.screenshot({ path: path.join(SCREENSHOTS, `${kind}-failing-after-action.png`), fullPage: true });
    if (kind === 'sqlite') {
      // The run it started (in the gateway's process) shows up in Runs.
      let kinds: string[] = [];
      for (let i = 0; i < 50 && kinds.filter((k) => k === 'full').length < 2; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 200));
        const res = await fetch(`${gw.url}/console/api/runs`, { headers: ADMIN_BEARER });
        kinds = ((await res.json()) as { runs: Array<{ kind: string; result: string }> }).runs.map((r) => r.kind);
      }
      expect(kinds.filter((k) => k === 'full')).toHaveLength(2);
    }
    // Only the refused fetch logged an error (Chromium reports a 403 it fetched).
    expect(errors.filter((e) => !/403/.test(e))).toEqual([]);
    await page.close();
  });
});
