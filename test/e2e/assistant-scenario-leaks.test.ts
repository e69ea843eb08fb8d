import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { runAssistantScenario } from '@content-gateway/kit/src/scenarios/assistant/run-assistant-scenario';
import { runKitCli } from './cli-process';

jest.setTimeout(240_000);

/**
 * The leak counter can fail: `harness --assistant --break-access wildcard` puts a gateway that
 * serves every access list as the wildcard (everyone may VIEW) in front of the real one. The
 * platform then answers people with files the oracle says they may not see; the command must
 * count them, keep counting them after every sync + ingest, and exit 1.
 */
describe('content-gateway harness --assistant, with access broken on purpose', () => {
  it('reports leaked citations in the summary and the JSON report, and exits 1', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-assistant-leaks-'));
    try {
      const r = await runKitCli(
        [
          'harness',
          '--assistant',
          '--seed',
          '4',
          '--tasks',
          '80',
          '--questions-per-user',
          '2',
          '--probe-limit',
          '40',
          '--break-access',
          'wildcard',
          '--out',
          out,
        ],
        {},
      );
      expect(r.stderr).toBe('');
      expect(r.code).toBe(1);
      expect(r.stdout).toMatch(/^FAIL no leaked citation/m);
      expect(r.stdout).toMatch(/^FAIL revoked access stopped at the first ingest after the sync \(still cited after 3 sync \+ ingest cycles\)/m);
      expect(r.stdout).toMatch(/^assistant scenario FAILED on sqlite: [1-9]\d* leaked/m);
      const report = JSON.parse(fs.readFileSync(path.join(out, 'assistant-report.json'), 'utf8')) as {
        ok: boolean;
        rounds: Array<{ label: string; leaked: Array<{ email: string; file: string }> }>;
      };
      expect(report.ok).toBe(false);
      for (const round of report.rounds) expect([round.label, round.leaked.length > 0]).toEqual([round.label, true]);
      // The Data API still agrees with what the scenario saw: the counter, not the bookkeeping, failed.
      expect(r.stdout).toMatch(/^ok {3}the Data API's records and counts agree with the scenario/m);
      expect(r.stdout).toMatch(/^ok {3}`usage` matches the scenario, file by file/m);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
});

/** The missed-citation counter can fail too: access lists served empty hide every file from everyone. */
describe('the closed-loop scenario, with every access list served empty', () => {
  it('counts missed citations (and no leak), says granted access never appeared, and fails', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-assistant-nobody-'));
    try {
      const result = await runAssistantScenario({
        seed: '4',
        tasks: 80,
        questionsPerUser: 2,
        probeLimit: 20,
        maxCycles: 1,
        out,
        logger: pino({ level: 'silent' }),
        print: () => undefined,
        breakAccess: 'nobody',
      });
      expect(result.ok).toBe(false);
      const initial = result.rounds[0];
      expect(initial?.leaked).toEqual([]);
      expect(initial?.citations).toBe(0);
      expect(initial?.missed.length).toBe(initial?.aboutVisible);
      expect(initial?.missed.length).toBeGreaterThan(0);
      expect(result.revocation.cycles[0]?.grantsMissed).toBe(result.revocation.grantProbes);
      expect(result.checks.filter((c) => !c.ok).map((c) => c.name)).toEqual([
        'no missed citation (a visible task, the only file with its code name, not cited)',
        'the questions tested both sides',
        'granted access appeared at the first ingest after the sync',
      ]);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  });
});
