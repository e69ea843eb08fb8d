import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { runMultiSourceHarness, type MultiSourceOptions } from '@content-gateway/kit/src/scenarios/multi-source/run-multi-source-harness';
import { databaseKinds } from '../helpers/test-databases';

/**
 * Several internal systems, one gateway: the work-management organization, a folder tree and a
 * SQL database with an attribute policy, people in two or three of them, crawled like the
 * platform and compared pair by pair with each source's own model, before and after changes.
 */
async function run(
  kind: string,
  extra: Partial<MultiSourceOptions> = {},
): Promise<{ result: Awaited<ReturnType<typeof runMultiSourceHarness>>; lines: string[] }> {
  const out = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-multi-test-'));
  const lines: string[] = [];
  try {
    const result = await runMultiSourceHarness({
      seed: '3',
      tasks: 60,
      out,
      logger: pino({ level: 'silent' }),
      print: (l) => lines.push(l),
      ...(kind === 'postgres' ? { databaseUrl: process.env.TEST_DATABASE_URL as string } : {}),
      ...extra,
    });
    return { result, lines };
  } finally {
    fs.rmSync(out, { recursive: true, force: true });
  }
}

describe.each(databaseKinds)('the multi-source scenario on %s staging', (kind) => {
  it('serves one user per person across three sources, with 0 over- and 0 under-exposed pairs before and after attribute changes', async () => {
    const { result, lines } = await run(kind);
    expect([lines.join('\n'), result.ok]).toEqual([lines.join('\n'), true]);
    expect(result.peopleBySources[2]).toBeGreaterThan(0);
    expect(result.peopleBySources[3]).toBeGreaterThan(0);
    expect(result.rounds.map((r) => r.label)).toEqual(['initial', 'after changes']);
    for (const round of result.rounds) {
      expect([round.label, round.access.overExposed, round.access.underExposed]).toEqual([round.label, [], []]);
      expect(round.report.summary.checks.fail).toBe(0);
      const sources = new Set(round.report.crawl.files.map((f) => f.listing.id.split(':')[0]));
      expect([...sources].sort()).toEqual(['files', 'records', 'wm']);
      expect(round.access.pairsCompared).toBeGreaterThan(1000);
    }
    expect(result.changes.join('\n')).toMatch(/moved to[\s\S]*rose to level 3[\s\S]*left the folder tree/);
  });
});

describe('the multi-source scenario can fail', () => {
  it('sees over-exposed pairs when the SQL source is synced with a policy that forgets the clearance test', async () => {
    const { result } = await run('sqlite', { brokenPolicy: true });
    expect(result.ok).toBe(false);
    const over = result.rounds[0]?.access.overExposed ?? [];
    expect(over.length).toBeGreaterThan(0);
    expect(over.every((m) => m.file.startsWith('records:'))).toBe(true);
    expect(result.rounds[0]?.access.underExposed).toEqual([]);
  });
});
