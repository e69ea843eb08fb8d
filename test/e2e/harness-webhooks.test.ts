import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { runHarness } from '@content-gateway/kit/src/scenarios/run-harness';
import { QUICK_RETRIES } from '../helpers/quick-retries';

/**
 * The end-to-end scenario with the gateway receiving the mock's webhooks: the change round's
 * deliveries ask for incremental runs by themselves, and the gateway is crawled and compared with
 * the oracle after them (0 over-, 0 under-exposed pairs) and after every other run. With half the
 * events lost (webhook deliveries and stream alike), the reconciliation still holds.
 */
// Several syncs and crawls a case: margin for a loaded machine (they fail by assertion, never by time).
jest.setTimeout(90_000);

describe('the end-to-end harness with webhooks on', () => {
  it.each([
    { name: 'webhooks delivered', eventLossRate: 0 },
    { name: 'webhook deliveries lost at 0.5', eventLossRate: 0.5 },
  ])('$name: every round, the webhook-asked one included, has 0 over- and 0 under-exposed pairs', async (scenario) => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-harness-webhooks-'));
    try {
      const result = await runHarness({
        seed: '2',
        tasks: 120,
        out,
        logger: pino({ level: 'silent' }),
        print: () => undefined,
        retryPolicy: QUICK_RETRIES,
        webhooks: true,
        ...scenario,
      });
      expect(result.rounds.map((r) => r.label).slice(0, 3)).toEqual(['initial', 'after webhook runs', 'after changes']);
      expect(result.rounds[1]?.sync.mode).toBe('incremental');
      if (scenario.eventLossRate > 0) expect(result.events?.lost).toBeGreaterThan(0);
      for (const round of result.rounds) {
        expect([round.label, round.access.overExposed]).toEqual([round.label, []]);
        expect([round.label, round.access.underExposed]).toEqual([round.label, []]);
        expect([round.label, round.report.summary.checks.fail]).toEqual([round.label, 0]);
        for (const check of round.checks) expect([round.label, check.name, check.ok, check.detail]).toEqual([round.label, check.name, true, check.detail]);
      }
      expect(result.ok).toBe(true);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
});
