import fc from 'fast-check';
import pino from 'pino';
import type { AccessEntry } from '../../src/adapters/adapter';
import { EffectiveAccess } from '../../src/conformance/access/effective-access';
import { normalizeEmail } from '../../src/lib/normalize-email';
import { runSync } from '../../src/sync/run-sync';
import { crawlAccess } from '../helpers/crawl-access';
import { ScriptedSource } from '../helpers/scripted-adapter';
import { databaseKinds } from '../helpers/test-databases';
import { startTestGateway, TEST_KEYS, type TestGateway } from '../helpers/test-gateway';

const logger = pino({ level: 'silent' });

/** People and the spellings sources use for them: case, full-width forms, decomposed accents, `ß`/`ẞ`, spaces. */
const PEOPLE: ReadonlyArray<readonly string[]> = [
  ['ana@example.com', 'Ana@Example.COM', ' ａｎａ@example.com'],
  ['jürgen@example.com', 'JU\u0308RGEN@example.com', 'Jürgen@EXAMPLE.com '],
  ['strasse@example.de', 'STRAẞE@example.de', 'straße@example.de'],
  ['bo@example.com', 'BO@example.com'],
  ['cy@example.com'],
];

interface Account {
  person: number;
  spelling: number;
  active: boolean;
}
interface SourceModel {
  accounts: Account[];
  /** Members: account indexes and earlier groups (nesting). */
  groups: Array<{ users: number[]; groups: number[] }>;
  files: Array<{ users: number[]; groups: number[]; everyone: boolean; dangling: boolean }>;
}

const accountArb = fc.record({ person: fc.nat(PEOPLE.length - 1), spelling: fc.nat(2), active: fc.boolean() });
const sourceArb: fc.Arbitrary<SourceModel> = fc
  .record({ accounts: fc.array(accountArb, { minLength: 1, maxLength: 5 }), groups: fc.nat(3), files: fc.integer({ min: 1, max: 4 }) })
  .chain(({ accounts, groups, files }) =>
    fc.record({
      accounts: fc.constant(accounts),
      groups: fc.tuple(
        ...Array.from({ length: groups }, (_, g) =>
          fc.record({ users: fc.subarray(accounts.map((_, i) => i)), groups: fc.subarray(Array.from({ length: g }, (_, i) => i)) }),
        ),
      ),
      files: fc.tuple(
        ...Array.from({ length: files }, () =>
          fc.record({
            users: fc.subarray(accounts.map((_, i) => i)),
            groups: fc.subarray(Array.from({ length: groups }, (_, i) => i)),
            everyone: fc.boolean(),
            dangling: fc.boolean(),
          }),
        ),
      ),
    }),
  );
/** Between the two syncs: accounts switched on or off, dropped from their source, or given another person's address. */
const changeArb: fc.Arbitrary<Change[]> = fc.array(
  fc.record({
    source: fc.nat(2),
    account: fc.nat(4),
    kind: fc.constantFrom('toggle' as const, 'drop' as const, 'move' as const),
    to: fc.nat(PEOPLE.length - 1),
  }),
  { maxLength: 4 },
);

const NAMES = ['alpha', 'beta', 'gamma'];
const emailOf = (a: Account): string => {
  const spellings = PEOPLE[a.person] as readonly string[];
  return spellings[a.spelling % spellings.length] as string;
};

function toSource(name: string, m: SourceModel): ScriptedSource {
  const s = new ScriptedSource(name);
  m.accounts.forEach((a, i) => {
    if (a.person >= 0) s.putUser({ nativeId: `u${i}`, email: emailOf(a), active: a.active });
  });
  m.groups.forEach((g, i) =>
    s.putGroup({
      nativeId: `g${i}`,
      members: [...g.users.map((u) => ({ type: 'USER' as const, nativeId: `u${u}` })), ...g.groups.map((x) => ({ type: 'GROUP' as const, nativeId: `g${x}` }))],
    }),
  );
  m.files.forEach((f, i) => {
    const access: AccessEntry[] = [
      ...f.users.map((u) => ({ type: 'USER' as const, nativeId: `u${u}` })),
      ...f.groups.map((g) => ({ type: 'GROUP' as const, nativeId: `g${g}` })),
    ];
    if (f.everyone) access.push({ type: 'EVERYONE' });
    if (f.dangling) access.push({ type: 'USER', nativeId: 'nobody' });
    s.html(`f${i}`, `<p>${i}</p>`, access);
  });
  return s;
}

/** The oracle: each source's own model, evaluated directly, united over sources by normalised email. */
function oracle(models: SourceModel[]): { people: Map<string, boolean>; access: Map<string, Set<string>> } {
  const people = new Map<string, boolean>();
  for (const m of models)
    for (const a of m.accounts) if (a.person >= 0) people.set(normalizeEmail(emailOf(a)), (people.get(normalizeEmail(emailOf(a))) ?? false) || a.active);
  const access = new Map<string, Set<string>>();
  models.forEach((m, s) => {
    const closure = (g: number, seen = new Set<number>()): number[] => {
      if (seen.has(g)) return [];
      seen.add(g);
      const group = m.groups[g];
      return group ? [...group.users, ...group.groups.flatMap((x) => closure(x, seen))] : [];
    };
    m.files.forEach((f, i) => {
      const who = new Set<string>();
      const grant = (u: number) => {
        const a = m.accounts[u];
        if (a && a.person >= 0 && a.active) who.add(normalizeEmail(emailOf(a)));
      };
      f.users.forEach(grant);
      f.groups.forEach((g) => closure(g).forEach(grant));
      if (f.everyone) for (const [email, active] of people) if (active) who.add(email);
      access.set(`${NAMES[s]}:f${i}`, who);
    });
  });
  return { people, access };
}

interface Change {
  source: number;
  account: number;
  kind: 'toggle' | 'drop' | 'move';
  to: number;
}

function applyChanges(models: SourceModel[], changes: readonly Change[]): void {
  for (const c of changes) {
    const a = models[c.source % models.length]?.accounts[c.account];
    if (!a || a.person < 0) continue;
    if (c.kind === 'toggle') a.active = !a.active;
    else if (c.kind === 'drop')
      a.person = -1; // the source no longer lists the account
    else a.person = c.to;
  }
}

/** Staging emptied between runs (one gateway serves them all: a fresh database per run costs more than the run). */
const TABLES = ['file_permissions', 'files', 'group_members', 'groups', 'users', 'people', 'sync_seen', 'sync_checkpoints', 'sync_locks', 'sync_runs'];

describe.each(databaseKinds)('one person, one user over random multi-source directories (%s staging)', (kind) => {
  let gw: TestGateway;
  beforeAll(async () => {
    gw = await startTestGateway(kind);
  });
  afterAll(async () => {
    await gw.close();
  });

  it('serves one user per distinct normalised email, active when active anywhere, and access = the union of what each source grants', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(sourceArb, { minLength: 1, maxLength: 3 }), changeArb, async (models, changes) => {
        for (const table of TABLES) await gw.database.db(table).delete();
        let clock = Date.parse('2026-05-01T00:00:00Z');
        {
          const check = async (label: string) => {
            for (const [i, m] of models.entries()) {
              clock += 60_000;
              const summary = await runSync(
                toSource(NAMES[i] as string, m),
                { db: gw.database.db, blobs: gw.blobs, logger, now: () => new Date(clock) },
                { mode: 'full' },
              );
              expect(summary.status).toBe('succeeded');
            }
            const crawl = await crawlAccess(gw.url, TEST_KEYS[0]);
            const want = oracle(models);
            const servedActive = new Map(
              crawl.users.filter((u) => want.people.has(normalizeEmail(u.email))).map((u) => [normalizeEmail(u.email), u.state === 'Active']),
            );
            // People no source lists any more stay served, inactive.
            for (const u of crawl.users) if (!want.people.has(normalizeEmail(u.email))) expect([label, u.email, u.state]).toEqual([label, u.email, 'Inactive']);
            expect([label, servedActive]).toEqual([label, want.people]);
            expect(new Set(crawl.users.map((u) => normalizeEmail(u.email))).size).toBe(crawl.users.length);
            for (const u of crawl.users) expect(u.id).toMatch(/^person-[0-9a-f]{32}$/);
            const effective = new EffectiveAccess(crawl);
            for (const [file, who] of want.access) {
              const served = new Set((effective.whoCanSee(file)?.users ?? []).map((u) => normalizeEmail(u.email ?? u.id)));
              expect([label, file, [...served].sort()]).toEqual([label, file, [...who].sort()]);
            }
          };
          await check('first sync');
          applyChanges(models, changes);
          await check('after changes');
        }
      }),
      { numRuns: 20 },
    );
  }, 300_000);
});
