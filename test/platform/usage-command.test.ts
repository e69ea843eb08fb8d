import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { UsageReport } from '../../src/platform/usage/usage-report';
import { runCli } from '../e2e/cli-process';
import { useBuiltProgram } from '../helpers/built-program';
import { canvasHasInk, hasChromium, launchHeadless, type HeadlessBrowser } from '../helpers/headless-browser';
import { TEST_KEYS } from '../helpers/test-gateway';
import { usageScenario, type UsageScenario } from './usage-scenario';

/**
 * `content-gateway usage` through the front door: the real CLI as a child process against the
 * demo gateway and the platform simulator, keys from the environment only; its HTML page opened
 * in headless Chromium and checked for what a person sees.
 */
jest.setTimeout(180_000);

const SCRIPT = '/usr/bin/script';
const MAIN = useBuiltProgram();

let s: UsageScenario;
let dir: string;
let env: Record<string, string>;
let args: string[];

beforeAll(async () => {
  s = await usageScenario('sqlite');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'usage-cli-'));
  env = { GATEWAY_API_KEY: TEST_KEYS[0], PLATFORM_DATA_API_KEY: s.p.sim.credentials.dataApiKey };
  args = ['usage', '--gateway-url', s.gw.url, '--data-api-url', `${s.p.origin}/regions/eu/export/v1/records`, '--source', s.gw.url];
}, 120_000);
afterAll(async () => {
  await s?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('content-gateway usage', () => {
  it('--json: the per-file figures the platform recorded, and how many platform requests it took', async () => {
    const r = await runCli([...args, '--json'], env);
    expect(r.code).toBe(0);
    const report = JSON.parse(r.stdout) as UsageReport;
    const expected = s.expected();
    expect(
      new Map(
        report.files
          .filter((f) => f.surfaced > 0)
          .map((f) => [f.id, { id: f.id, surfaced: f.surfaced, cited: f.cited, helpful: f.helpful, unhelpful: f.unhelpful }]),
      ),
    ).toEqual(expected);
    expect(report.staleCitations.map((f) => f.id).sort()).toEqual([s.purged, s.tombstoned].sort());
    expect(report.requests.platform).toBeGreaterThan(0);
    expect(report.dataApiUrl).toBe(`${s.p.origin}/regions/eu/export/v1/records`);
  });

  it('with OAuth client credentials instead of a Data API key (token from the Data API host): the same figures', async () => {
    const oauth = {
      GATEWAY_API_KEY: TEST_KEYS[0],
      PLATFORM_DATA_CLIENT_ID: s.p.sim.credentials.clients.data.clientId,
      PLATFORM_DATA_CLIENT_SECRET: s.p.sim.credentials.clients.data.clientSecret,
    };
    const r = await runCli([...args, '--json'], oauth);
    expect([r.code, r.stderr]).toEqual([0, '']);
    const report = JSON.parse(r.stdout) as UsageReport;
    expect(
      new Map(
        report.files
          .filter((f) => f.surfaced > 0)
          .map((f) => [f.id, { id: f.id, surfaced: f.surfaced, cited: f.cited, helpful: f.helpful, unhelpful: f.unhelpful }]),
      ),
    ).toEqual(s.expected());
    const wrongSecret = 'not-the-secret-9f8e7d6c';
    const wrong = await runCli([...args, '--json'], { ...oauth, PLATFORM_DATA_CLIENT_SECRET: wrongSecret });
    expect(wrong.code).toBe(1);
    expect(wrong.stderr).toMatch(/token endpoint answered 401/);
    expect(wrong.stderr + wrong.stdout).not.toContain(wrongSecret);
  });

  it("the region matters: the tenant's records are in the EU server only; another region's refuses the key in one line", async () => {
    const us = args.map((a) => a.replace('/regions/eu/', '/regions/us/'));
    const r = await runCli([...us, '--json'], env);
    expect(r.code).toBe(1);
    expect(r.stdout).toBe('');
    expect(r.stderr.trim().split('\n')).toEqual([expect.stringMatching(/403.*regions\/us\//)]);
    expect(r.stderr).not.toContain(env.PLATFORM_DATA_API_KEY as string);
  });

  it('the terminal table: totals, the most cited files first with their numbers, stale citations, the cost', async () => {
    const r = await runCli([...args, '--top', '5'], env);
    expect(r.code).toBe(0);
    const top = [...s.expected().values()].sort((a, b) => b.cited - a.cited || b.surfaced - a.surfaced || (a.id < b.id ? -1 : 1))[0]!;
    const row = r.stdout.split('\n').find((l) => l.includes(top.id))!;
    expect(row.trim().split(/\s+/).slice(-5)).toEqual([
      top.id === s.tombstoned ? 'deleted' : top.id === s.purged ? 'missing' : 'active',
      String(top.surfaced),
      String(top.cited),
      String(top.helpful),
      String(top.unhelpful),
    ]);
    // The file figures add up: the two cited files gone from the gateway count among the files, not the active ones.
    const [, files, active, surfaced, cited, never] = (
      /^ {2}(\d+) files \((\d+) active\): (\d+) surfaced, (\d+) cited; (\d+) active never surfaced$/m.exec(r.stdout) ?? []
    ).map(Number);
    const used = [...s.expected().values()];
    expect({ files, active, surfaced, cited }).toEqual({ files: active! + 2, active, surfaced: used.length, cited: used.filter((u) => u.cited > 0).length });
    expect(active! - never!).toBe(used.filter((u) => u.id !== s.purged && u.id !== s.tombstoned).length);
    expect(r.stdout).toMatch(/Most cited files \(5 of \d+\):/);
    expect(r.stdout).toMatch(/Stale citations: 2 cited file\(s\)/);
    expect(r.stdout).toMatch(/Platform requests: \d+ \(/);
    expect(r.stderr).toBe(''); // no progress bar off a terminal, no log noise
  });

  (fs.existsSync(SCRIPT) ? it : it.skip)('on a terminal: a progress bar on stderr while it counts, every phase to its end, then the table', async () => {
    // util-linux's `script` runs the CLI on a pseudo-terminal, as a person at a shell would; its output is what they see.
    // Paced at one request a second, so every phase lasts long enough for the bar (redrawn every 100 ms) to show it.
    const argv = [process.execPath, MAIN, ...args, '--requests-per-minute', '60'];
    const shell = argv.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
    const r = await new Promise<{ code: number | null; out: string }>((resolve) => {
      const child = spawn(SCRIPT, ['-q', '-e', '-c', shell, '/dev/null'], { env: { PATH: process.env.PATH ?? '', LOG_LEVEL: 'warn', TERM: 'xterm', ...env } });
      let out = '';
      child.stdout.on('data', (c: Buffer) => (out += c.toString()));
      child.on('close', (code) => resolve({ code, out }));
    });
    expect(r.code).toBe(0);
    const screen = r.out.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, '');
    for (const phase of ['counting', 'feedback', 'stale'])
      expect([phase, new RegExp(` ${phase} \\[[=-]+\\] \\d+/\\d+ files`).test(screen)]).toEqual([phase, true]);
    const counted = [...screen.matchAll(/ counting \[=+\] (\d+)\/(\d+) files/g)].map((m) => [Number(m[1]), Number(m[2])]);
    expect(counted.length).toBeGreaterThan(0);
    expect(counted.at(-1)![0]).toBe(counted.at(-1)![1]);
    expect(screen.indexOf(' stale [')).toBeLessThan(screen.indexOf('Most cited files'));
  });

  it('keys only from the environment: without them it says which variable to set; --help documents them', async () => {
    const r = await runCli(args, { GATEWAY_API_KEY: TEST_KEYS[0] });
    expect(r.code).not.toBe(0);
    expect(r.stderr + r.stdout).toMatch(/PLATFORM_DATA_API_KEY/);
    const bad = await runCli([...args.slice(0, 3), '--region', 'mars'], env);
    expect(bad.stderr + bad.stdout).toMatch(/Unknown Data API region "mars"; known regions: us, eu/);
    // A region and an explicit base at once is ambiguous: refused, not one of them silently dropped.
    const both = await runCli([...args, '--region', 'us', '--json'], env);
    expect([both.code, both.stdout]).toEqual([1, '']);
    expect(both.stderr).toMatch(/region or a base URL, not both/);
    const help = await runCli(['usage', '--help'], {});
    expect(help.stdout).toMatch(/GATEWAY_API_KEY/);
    expect(help.stdout).toMatch(/PLATFORM_DATA_CLIENT_ID/);
    expect(help.stdout).toMatch(/--requests-per-minute/);
  });

  (hasChromium ? describe : describe.skip)('the --html page in headless Chromium', () => {
    let browser: HeadlessBrowser;
    let file: string;
    beforeAll(async () => {
      file = path.join(dir, 'usage.html');
      const r = await runCli([...args, '--html', file], env);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`HTML report: ${file}`);
      browser = await launchHeadless();
    });
    afterAll(() => browser?.close());

    it('draws its three charts, shows every file with its numbers, no console errors, and its links go somewhere', async () => {
      const { page, errors } = await browser.open(file);
      await page.waitForSelector('body[data-charts-ready="true"]', { timeout: 10_000 });
      for (const id of ['#chart-cited', '#chart-use', '#chart-feedback']) expect([id, await canvasHasInk(page, id)]).toEqual([id, true]);
      const expected = s.expected();
      const rows = await page.$$eval('#files-table tbody tr', (trs) =>
        trs.map((tr) => Array.from(tr.querySelectorAll('td'), (td) => ((td as { textContent: string | null }).textContent ?? '').trim())),
      );
      for (const [id, e] of expected) {
        const row = rows.find((r) => r[0]!.startsWith(id));
        expect([id, row?.slice(2)]).toEqual([id, [e.surfaced, e.cited, e.helpful, e.unhelpful].map(String)]);
      }
      expect(await page.isVisible('#files-table')).toBe(true);
      // The first card names every file of the report and how many are active, so "surfaced" never exceeds it.
      const cards = await page.$$eval('.card', (cs) => cs.map((c) => ((c as { textContent: string | null }).textContent ?? '').trim()));
      const active = rows.filter((r) => r[1] === 'active').length;
      expect(cards[0]).toBe(`${rows.length}files (${active} active)`);
      expect(cards[1]).toBe(`${expected.size}surfaced`);
      expect(await page.textContent('#stale')).toContain('Stale citations (2)');
      const hrefs = await page.$$eval('a[href^="#"]', (as) => as.map((a) => a.getAttribute('href') ?? ''));
      expect(hrefs.length).toBeGreaterThan(5);
      for (const href of hrefs) if (href !== '#') expect([href, await page.locator(href).count()]).toEqual([href, 1]);
      await page.click('a[href="#never-surfaced"]');
      expect(await page.evaluate('location.hash')).toBe('#never-surfaced');
      expect(errors).toEqual([]);
    });
  });
});
