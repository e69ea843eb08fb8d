import fc from 'fast-check';
import pino from 'pino';
import { createSqlAdapter, parseDatabaseUrl, resolveSqlMapping } from '../../../src/adapters/sql';
import { runSync } from '../../../src/sync/run-sync';
import { filesSeenByEmail } from '../../helpers/crawl-access';
import { createFixtureSchema, DOCUMENT_COUNT, fixtureMapping, seedFixture } from '../../helpers/sql-fixture';
import { createSqlSource, type SqlSource } from '../../helpers/sql-source';
import { startTestGateway, TEST_KEYS, type TestGateway } from '../../helpers/test-gateway';

/**
 * Property: whatever an application does to the SQL fixture's people, teams, memberships and
 * access rows between runs (timestamps untouched unless a step says so), every run reports success
 * without failures (the changes are valid data) and leaves the gateway serving exactly the access
 * the source tables grant now: no pair the source withdrew, none it never granted. Runs are
 * incremental (by modified time, or by the change table, which these edits never write to; access
 * reconciliation on) or full, through the real engine into a gateway on loopback.
 */
const KEY = TEST_KEYS[0];
const logger = pino({ level: 'silent' });
const PEOPLE = [1, 2, 3, 4, 5, 6];
const TEAMS = ['finance-team', 'all-staff', 'extra'];
const DOCS = Array.from({ length: DOCUMENT_COUNT }, (_, i) => i + 1);

type Step =
  | { op: 'member'; team: string; person: number }
  | { op: 'nest'; team: string; sub: string }
  | { op: 'grant'; doc: number; type: 'USER' | 'GROUP' | 'EVERYONE'; id: string }
  | { op: 'active'; person: number; active: boolean }
  | { op: 'team'; team: string }
  | { op: 'touch'; doc: number }
  | { op: 'sync'; mode: 'auto' | 'full' };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant('member' as const), team: fc.constantFrom(...TEAMS), person: fc.constantFrom(...PEOPLE) }),
  fc.record({ op: fc.constant('nest' as const), team: fc.constantFrom(...TEAMS), sub: fc.constantFrom(...TEAMS) }),
  fc.oneof(
    fc.record({
      op: fc.constant('grant' as const),
      doc: fc.constantFrom(...DOCS),
      type: fc.constant('USER' as const),
      id: fc.constantFrom(...PEOPLE.map(String), '999'),
    }),
    fc.record({ op: fc.constant('grant' as const), doc: fc.constantFrom(...DOCS), type: fc.constant('GROUP' as const), id: fc.constantFrom(...TEAMS) }),
    fc.record({ op: fc.constant('grant' as const), doc: fc.constantFrom(...DOCS), type: fc.constant('EVERYONE' as const), id: fc.constant('') }),
  ),
  fc.record({ op: fc.constant('active' as const), person: fc.constantFrom(...PEOPLE), active: fc.boolean() }),
  fc.record({ op: fc.constant('team' as const), team: fc.constantFrom(...TEAMS) }),
  fc.record({ op: fc.constant('touch' as const), doc: fc.constantFrom(...DOCS) }),
  fc.record({ op: fc.constant('sync' as const), mode: fc.constantFrom('auto' as const, 'full' as const) }),
);

/** Toggles: a row there is removed, one missing is added. */
async function apply(source: SqlSource, step: Step, clock: { at: number }): Promise<void> {
  const { db } = source;
  const toggle = async (table: string, row: Record<string, unknown>) => {
    const where = Object.fromEntries(Object.entries(row).filter(([, v]) => v !== null));
    const query = db(table).where(where);
    if ('principal_id' in row && row.principal_id === null) query.whereNull('principal_id');
    if (await query.clone().first()) await query.delete();
    else await db(table).insert(row);
  };
  if (step.op === 'member') await toggle('team_members', { team_id: step.team, member_id: String(step.person), member_type: 'USER' });
  else if (step.op === 'nest') await toggle('team_members', { team_id: step.team, member_id: step.sub, member_type: 'GROUP' });
  else if (step.op === 'grant')
    await toggle('document_access', { document_id: step.doc, principal_type: step.type, principal_id: step.type === 'EVERYONE' ? null : step.id });
  else if (step.op === 'active') await db('people').where({ id: step.person }).update({ is_active: step.active });
  else if (step.op === 'team') {
    if (await db('teams').where({ id: step.team }).first()) await db('teams').where({ id: step.team }).delete();
    else await db('teams').insert({ id: step.team, name: step.team });
  } else if (step.op === 'touch') {
    clock.at += 60_000;
    await db('documents')
      .where({ id: step.doc })
      .update({ updated_at: source.ts(clock.at) });
  }
}

/** Who may see what, by the source tables alone: email -> sorted file ids. */
async function oracle(source: SqlSource): Promise<Record<string, string[]>> {
  const { db } = source;
  const people = (await db('people').select('id', 'email', 'is_active')) as Array<{ id: number; email: string; is_active: number | boolean }>;
  const known = new Set(people.map((p) => String(p.id)));
  const active = new Set(people.filter((p) => Boolean(p.is_active)).map((p) => String(p.id)));
  const teams = new Set(((await db('teams').select('id')) as Array<{ id: string }>).map((t) => t.id));
  const members = (await db('team_members').select('team_id', 'member_id', 'member_type')) as Array<{
    team_id: string;
    member_id: string;
    member_type: string;
  }>;
  const closure = (team: string): Set<string> => {
    const out = new Set<string>();
    const seen = new Set<string>();
    const walk = (t: string) => {
      if (seen.has(t) || !teams.has(t)) return;
      seen.add(t);
      for (const m of members.filter((r) => r.team_id === t)) {
        if (m.member_type === 'USER' && known.has(m.member_id)) out.add(m.member_id);
        if (m.member_type === 'GROUP') walk(m.member_id);
      }
    };
    walk(team);
    return out;
  };
  const rows = (await db('document_access').select('document_id', 'principal_type', 'principal_id')) as Array<{
    document_id: number;
    principal_type: string;
    principal_id: string | null;
  }>;
  const docs = ((await db('documents').select('id')) as Array<{ id: number }>).map((d) => d.id);
  const out: Record<string, string[]> = Object.fromEntries(people.filter((p) => active.has(String(p.id))).map((p) => [p.email, [] as string[]]));
  for (const doc of docs) {
    const who = new Set<string>();
    for (const r of rows.filter((x) => x.document_id === doc)) {
      const type = r.principal_type.toUpperCase();
      if (type === 'EVERYONE') for (const p of active) who.add(p);
      if (type === 'USER' && r.principal_id !== null && known.has(r.principal_id)) who.add(r.principal_id);
      if (type === 'GROUP' && r.principal_id !== null) for (const p of closure(r.principal_id)) who.add(p);
    }
    for (const p of people) if (who.has(String(p.id)) && active.has(String(p.id))) out[p.email]?.push(`hr:${doc}`);
  }
  for (const list of Object.values(out)) list.sort();
  return out;
}

/** What the gateway lets each active user see, by email. */
const served = (gw: TestGateway): Promise<Record<string, string[]>> => filesSeenByEmail(gw.url, KEY);

describe.each(['modified', 'changes'] as const)(
  'SQL source (incremental by %s), property: a successful run serves exactly what the tables grant now',
  (mode) => {
    it('holds for any sequence of membership, access, activity and team changes, incremental and full runs', async () => {
      await fc.assert(
        fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 12 }), async (steps) => {
          const source = await createSqlSource('sqlite');
          const gw = await startTestGateway('sqlite');
          const clock = { at: Date.parse('2026-04-10T00:00:00Z') };
          let runAt = Date.parse('2026-05-01T00:00:00Z');
          try {
            await createFixtureSchema(source.db);
            await seedFixture(source);
            await source.db('teams').insert({ id: 'extra', name: 'extra' });
            const adapter = createSqlAdapter({
              connection: parseDatabaseUrl(source.url),
              mapping: resolveSqlMapping(fixtureMapping(mode)),
              sourceName: 'hr',
              pageSize: 4,
            });
            const sync = async (mode: 'auto' | 'full') => {
              runAt += 3_600_000;
              return runSync(adapter, { db: gw.database.db, blobs: gw.blobs, logger, now: () => new Date(runAt) }, { mode });
            };
            expect((await sync('full')).status).toBe('succeeded');
            for (const step of [...steps, { op: 'sync', mode: 'auto' } as const]) {
              if (step.op !== 'sync') {
                await apply(source, step, clock);
                continue;
              }
              // Every change here is valid data: each run must succeed, and then serve exactly the tables' access.
              const summary = await sync(step.mode);
              expect([summary.status, summary.failures]).toEqual(['succeeded', []]);
              expect(await served(gw)).toEqual(await oracle(source));
            }
          } finally {
            await gw.close();
            await source.destroy();
          }
        }),
        { numRuns: 15 },
      );
    }, 300_000);
  },
);
