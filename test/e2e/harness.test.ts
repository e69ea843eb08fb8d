import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { runHarness } from '../../src/harness/run-harness';

describe('the end-to-end harness (work-management mock → adapter → staging → gateway → conformance crawl → oracle)', () => {
  it('finds no conformance failure and no over- or under-exposed (user, file) pair, before and after a round of changes', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-harness-test-'));
    const lines: string[] = [];
    try {
      const result = await runHarness({ seed: '11', tasks: 250, out, logger: pino({ level: 'silent' }), print: (l) => lines.push(l) });
      expect(result.rounds.map((r) => r.label)).toEqual(['initial', 'after changes']);
      for (const round of result.rounds) {
        expect([round.label, round.report.summary.checks.fail]).toEqual([round.label, 0]);
        expect([round.label, round.access.overExposed]).toEqual([round.label, []]);
        expect([round.label, round.access.underExposed]).toEqual([round.label, []]);
        expect(round.access.filesCompared).toBeGreaterThan(250);
        for (const check of round.checks) expect([round.label, check.name, check.ok, check.detail]).toEqual([round.label, check.name, true, check.detail]);
        expect(fs.existsSync(round.reportPaths.html)).toBe(true);
      }
      expect(result.changes?.movedTasks).toHaveLength(3);
      expect(result.ok).toBe(true);
      expect(lines.join('\n')).toMatch(/HTML report: .*conformance-report\.html/);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  }, 180_000);
});
