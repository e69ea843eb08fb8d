import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli } from '../e2e/cli-process';
import { startBrokenGateway, type RunningBrokenGateway } from './broken-gateway';
import { inlineParts, readAsset, sha256 } from './report-page-parts';

/**
 * The HTML report as the built program writes it (`node dist/src/main.js conformance`, what
 * `npm run conformance` and the image run): its style sheet and scripts are files read at run
 * time, so the build must leave them where the compiled code looks, and the page's policy must
 * carry their hashes.
 */
jest.setTimeout(180_000);

describe('content-gateway conformance, built', () => {
  let gw: RunningBrokenGateway;
  let dir: string;
  beforeAll(async () => {
    gw = await startBrokenGateway();
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'conformance-built-'));
  });
  afterAll(async () => {
    await gw?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it("writes one self-contained HTML page with the report's style sheet and scripts inline, allowed by their SHA-256", async () => {
    const r = await runCli(['conformance', '--url', gw.url, '--out', dir], { CONFORMANCE_API_KEY: gw.key });
    expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 0, stderr: '' });
    const { policy, style, script } = inlineParts(fs.readFileSync(path.join(dir, 'conformance-report.html'), 'utf8'));
    expect(style).toBe(readAsset('report-page.css'));
    expect(script).toBe(`${readAsset('access-explorer.js')}\n${readAsset('report-page.js')}`);
    expect(policy).toBe(`default-src 'none'; style-src ${sha256(style)}; script-src ${sha256(script)}`);
  });
});
