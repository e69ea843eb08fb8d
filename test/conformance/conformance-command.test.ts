import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { buildProgram } from '../../src/cli/program';
import type { Runtime } from '../../src/cli/runtime';
import type { ConformanceReport } from '../../src/conformance/report/conformance-report';
import { startTestGateway, TEST_KEYS } from '../helpers/test-gateway';
import { startBrokenGateway, type RunningBrokenGateway } from './broken-gateway';

/** A loopback port nothing listens on: bound once, then released. */
async function deadPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

function fakeRuntime(env: Record<string, string> = {}) {
  const out: string[] = [];
  let exitCode = 0;
  const runtime: Runtime = {
    env,
    print: (line) => void out.push(line),
    listen: () => Promise.reject(new Error('conformance never listens')),
    onShutdown: () => undefined,
    setExitCode: (code) => void (exitCode = code),
    interactive: false,
  };
  return { runtime, out, exitCode: () => exitCode };
}

async function cli(args: string[], env: Record<string, string> = {}) {
  const r = fakeRuntime(env);
  await (await buildProgram(r.runtime)).parseAsync(args, { from: 'user' });
  return { text: r.out.join('\n'), exitCode: r.exitCode() };
}

describe('content-gateway conformance (CLI)', () => {
  let dir: string;
  let clean: RunningBrokenGateway;
  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'conformance-'));
    clean = await startBrokenGateway();
  });
  afterAll(async () => {
    await clean.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('crawls, prints the summary and where the HTML report is, writes both reports, exits 0 when nothing fails', async () => {
    const out = path.join(dir, 'clean');
    const { text, exitCode } = await cli(['conformance', '--url', clean.url, '--out', out], { CONFORMANCE_API_KEY: clean.key });
    expect(exitCode).toBe(0);
    expect(text).toMatch(/^Crawling http:\/\/127\.0\.0\.1:\d+ with up to 20 requests in flight, ids percent-encoded, judged by the platform profile…/);
    expect(text).toContain('(platform profile, ids percent-encoded): PASS');
    expect(text).toContain(`HTML report: ${path.join(out, 'conformance-report.html')}`);
    expect(fs.readFileSync(path.join(out, 'conformance-report.html'), 'utf8')).toMatch(/^<!doctype html>/);
    const report = JSON.parse(fs.readFileSync(path.join(out, 'conformance-report.json'), 'utf8')) as ConformanceReport;
    expect(report.summary.ok).toBe(true);
    expect(text).not.toContain(clean.key); // the key is never printed
    expect(fs.readFileSync(path.join(out, 'conformance-report.json'), 'utf8')).not.toContain(clean.key);
  });

  it('exits 1 when a check fails, and applies an expectations file (key from the environment); the profile decides how bad a USER * is', async () => {
    const broken = await startBrokenGateway('user-wildcard');
    try {
      const expect_ = path.join(dir, 'access.yaml');
      fs.writeFileSync(expect_, 'expectations:\n  - file: kb-2\n    can_see: [ana@corp.example]\n    cannot_see: [dot@corp.example, eve@corp.example]\n');
      // The platform's validator only warns about {type: USER, id: "*"}; our contract never serves it.
      const platform = await cli(['conformance', '--url', broken.url, '--out', path.join(dir, 'broken-platform'), '--odd-top', '0'], {
        CONFORMANCE_API_KEY: broken.key,
      });
      expect(platform.exitCode).toBe(0);
      expect(platform.text).toMatch(/WARN permissions\.wildcard .*— rule: \[GW-VAL-new\]/);
      const { text, exitCode } = await cli(
        ['conformance', '--url', broken.url, '--profile', 'strict', '--out', path.join(dir, 'broken'), '--expect', expect_, '--odd-top', '0'],
        { CONFORMANCE_API_KEY: broken.key },
      );
      expect(exitCode).toBe(1);
      expect(text).toContain('FAIL permissions.wildcard');
      expect(text).toContain('(strict profile, ids percent-encoded): FAIL');
      const report = JSON.parse(fs.readFileSync(path.join(dir, 'broken', 'conformance-report.json'), 'utf8')) as ConformanceReport;
      expect(report.findings.find((f) => f.check === 'access.expectations')).toMatchObject({ severity: 'pass', message: 'all 3 expectations hold' });
      expect(report.recorded.oddTop).toBeUndefined();
    } finally {
      await broken.close();
    }
  });

  it('who-can-see and what-can answer from a saved report, or from a fresh crawl', async () => {
    const saved = path.join(dir, 'clean', 'conformance-report.json');
    const who = await cli(['conformance', 'who-can-see', 'kb-8', '--report', saved]);
    expect(who.text.split('\n')).toEqual([
      'File kb-8 "Document kb-8" (active)',
      '  4 active users can see it:',
      '    ana@corp.example (Ana) via GROUP g-eng',
      '    ben@corp.example (Ben) via GROUP g-eng',
      '    cai@corp.example (Cai) via GROUP g-eng',
      '    dot@corp.example (Dot) via USER u-dot',
    ]);
    const hr = await cli(['conformance', 'who-can-see', 'kb-4', '--report', saved, '--json']);
    const answer = JSON.parse(hr.text) as { users: Array<{ email: string }>; inactive: Array<{ email: string }> };
    expect(answer.users.map((u) => u.email)).toEqual(['dot@corp.example']);
    expect(answer.inactive.map((u) => u.email)).toEqual(['eve@corp.example']);

    const what = await cli(['conformance', 'what-can', 'cai@corp.example', 'see', '--url', clean.url], { GATEWAY_API_KEY: clean.key });
    expect(what.exitCode).toBe(0);
    expect(what.text).toMatch(/^cai@corp\.example — user u-cai\n {2}can see 8 files:/);
    expect(what.text).toContain('kb-6 "Document kb-6" via GROUP g-plat');
    const eve = await cli(['conformance', 'what-can', 'eve@corp.example', 'see', '--report', saved]);
    expect(eve.text).toContain('is inactive: sees nothing');
    expect(eve.text).toContain('Would see on reactivation (5):');

    expect((await cli(['conformance', 'who-can-see', 'nope', '--report', saved])).exitCode).toBe(1);
    expect((await cli(['conformance', 'what-can', 'nobody@corp.example', 'see', '--report', saved])).exitCode).toBe(1);
  });

  it('stops at once with one line and exit code 3 when nothing listens at the URL, writing no reports', async () => {
    const url = `http://127.0.0.1:${await deadPort()}`;
    const out = path.join(dir, 'dead');
    const { text, exitCode } = await cli(['conformance', '--url', url, '--out', out], { CONFORMANCE_API_KEY: 'some-key-0123456789' });
    expect(exitCode).toBe(3);
    expect(text.split('\n')).toHaveLength(1);
    expect(text).toMatch(new RegExp(`^conformance: ${url} is unreachable: .*refused`));
    expect(fs.existsSync(out)).toBe(false);
    // The access questions crawl too: the same line and code.
    const who = await cli(['conformance', 'who-can-see', 'kb-1', '--url', url], { CONFORMANCE_API_KEY: 'some-key-0123456789' });
    expect(who).toEqual({ text, exitCode: 3 });
  });

  it('stops at once with one line and exit code 4 when the gateway refuses the key, writing no reports nor showing the key', async () => {
    const gateway = await startTestGateway('sqlite');
    try {
      const out = path.join(dir, 'wrong-key');
      const wrong = `${TEST_KEYS[0]}-not`;
      const { text, exitCode } = await cli(['conformance', '--url', gateway.url, '--out', out], { GATEWAY_API_KEY: wrong });
      // The line names where the key came from.
      expect({ text, exitCode }).toEqual({ text: `conformance: ${gateway.url} refused the key (401): check GATEWAY_API_KEY`, exitCode: 4 });
      expect(fs.existsSync(out)).toBe(false);
      const what = await cli(['conformance', 'what-can', 'ana@corp.example', 'see', '--url', gateway.url], { CONFORMANCE_API_KEY: wrong });
      expect(what).toEqual({ text: `conformance: ${gateway.url} refused the key (401): check CONFORMANCE_API_KEY`, exitCode: 4 });
      // The right key passes the check and crawls.
      const right = await cli(['conformance', '--url', gateway.url, '--out', out, '--odd-top', '0', '--no-probes'], { CONFORMANCE_API_KEY: TEST_KEYS[0] });
      expect(right.text).toMatch(/^Crawling /);
      expect(fs.existsSync(path.join(out, 'conformance-report.json'))).toBe(true);
    } finally {
      await gateway.close();
    }
  });

  it('refuses to run without a URL or a key, and names what is missing', async () => {
    await expect(cli(['conformance'], { CONFORMANCE_API_KEY: 'k' })).rejects.toThrow(/--url/);
    await expect(cli(['conformance', '--url', clean.url])).rejects.toThrow(/CONFORMANCE_API_KEY.*--key-file/);
  });
});
