import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { runAssistantScenario } from '@content-gateway/kit/src/scenarios/assistant/run-assistant-scenario';
import { databaseKinds } from '../helpers/test-databases';

/**
 * The closed loop on a small organization (80 tasks, 37 members): work-management mock →
 * adapter → staging → gateway → platform simulator (ingest over HTTP) → every member asking the
 * assistant over the Conversations API → citations judged against the mock's visibility oracle.
 */
describe.each(databaseKinds)('the closed-loop assistant scenario on %s staging', (kind) => {
  it('cites nothing a member may not see, misses nothing only they may see, drops revoked access at the first ingest after the sync, and agrees with the Data API', async () => {
    const out = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-assistant-test-'));
    const lines: string[] = [];
    try {
      const result = await runAssistantScenario({
        seed: '4',
        tasks: 80,
        questionsPerUser: 4,
        out,
        logger: pino({ level: 'silent' }),
        print: (l) => lines.push(l),
        ...(kind === 'postgres' ? { databaseUrl: process.env.TEST_DATABASE_URL } : {}),
      });
      expect(result.rounds.map((r) => r.label)).toEqual(['initial', 'changed access, cycle 1', 'after changes']);
      for (const round of result.rounds) {
        expect([round.label, round.leaked]).toEqual([round.label, []]);
        expect([round.label, round.missed]).toEqual([round.label, []]);
        expect([round.label, round.unresolved]).toEqual([round.label, []]);
      }
      // Every member asked, about tasks on both sides of their access, and the answers cited files.
      const initial = result.rounds[0];
      expect(initial?.questions).toBe(result.organization.members * 4);
      expect(initial?.aboutVisible).toBeGreaterThan(20);
      expect(initial?.aboutHidden).toBeGreaterThan(20);
      expect(initial?.citations).toBeGreaterThan(initial?.aboutVisible ?? 0);

      // Every kind of change revoked something, and was asked about.
      const r = result.revocation;
      expect(r.cyclesToStop).toBe(1);
      expect(r.probesByChange.deletedTasks).toBeGreaterThan(0);
      expect(r.probesByChange.movedTasks).toBeGreaterThan(0);
      expect(r.probesByChange.removedMember).toBeGreaterThan(0);
      expect(r.probesByChange.deactivatedGuest).toBeGreaterThan(0);
      expect(r.cycles[0]?.sync.mode).toBe('incremental');
      // The member added to a private project sees its tasks cited at the first ingest after the sync.
      expect(r.grantProbes).toBeGreaterThan(0);
      expect(r.cycles[0]?.grantsMissed).toBe(0);

      // The platform's records and counts are what the scenario saw, file by file.
      expect(result.dataApi.disagreements).toEqual([]);
      expect(result.dataApi.counts.filter((c) => c.expected !== c.counted)).toEqual([]);
      expect(result.dataApi.counts.length).toBe(2 + 2 * result.usage.length);
      const feedback = result.usage.reduce((n, u) => n + u.helpful + u.unhelpful, 0);
      expect(feedback).toBeGreaterThan(0);
      expect(result.usage.some((u) => u.helpful > 0) && result.usage.some((u) => u.unhelpful > 0)).toBe(true);

      // `usage` (the operator's report) against the simulator says what the scenario recorded, file by file,
      // and finds the deleted tasks people had been shown as stale citations.
      const u = result.usageAgreement;
      expect(u.differences).toEqual([]);
      expect(u.files).toBeGreaterThanOrEqual(result.usage.length);
      expect(u.staleCitations.reported).toEqual(u.staleCitations.expected);
      expect(u.staleCitations.expected.length).toBeGreaterThan(0);
      for (const file of u.staleCitations.expected) expect(result.changes.deletedTasks.map((gid) => `wm:task:${gid}`)).toContain(file);
      expect(u.neverSurfaced.reported).toEqual(u.neverSurfaced.expected);

      expect(result.checks.filter((c) => !c.ok)).toEqual([]);
      expect(result.ok).toBe(true);
      const json = JSON.parse(fs.readFileSync(path.join(out, 'assistant-report.json'), 'utf8')) as { ok: boolean; rounds: unknown[]; usage: unknown[] };
      expect(json).toMatchObject({ ok: true });
      expect(json.usage).toHaveLength(result.usage.length);
      expect(lines.join('\n')).toMatch(kind === 'postgres' ? /staging: postgres \(schema harness_/ : /staging: sqlite/);
      expect(lines.join('\n')).toMatch(/assistant scenario passed on .*: 0 leaked, 0 missed citations/);
    } finally {
      fs.rmSync(out, { recursive: true, force: true });
    }
  }, 240_000);
});
