import fc from 'fast-check';
import { EffectiveAccess } from '../../src/conformance/access/effective-access';
import { AccessExplorer, type FileAnswer, type UserAnswer } from '../../src/console/access-explorer';
import { seedDemo } from '../../src/demo/seed-demo';
import { crawlAccess } from '../helpers/crawl-access';
import { databaseKinds } from '../helpers/test-databases';
import { startTestGateway, TEST_KEYS, type TestGateway } from '../helpers/test-gateway';

const emails = (list: ReadonlyArray<{ email?: string }>) => list.map((u) => u.email ?? '').sort();
const ids = (list: ReadonlyArray<{ id: string }>) => list.map((f) => f.id).sort();

/** The grant path in one line, for readable expectations. */
const shown = (p: { entry: { type: string; id: string }; groups: Array<{ id: string }> }) =>
  [`${p.entry.type} ${p.entry.id}`, ...p.groups.map((g) => g.id)].join(' > ');

describe.each(databaseKinds)('access explorer over the demo staged by a real sync (%s)', (kind) => {
  let gw: TestGateway;
  let explorer: AccessExplorer;
  /** What `conformance who-can-see` / `what-can` answer: the same code, over a crawl of the same gateway. */
  let conformance: EffectiveAccess;

  beforeAll(async () => {
    gw = await startTestGateway(kind);
    await seedDemo(gw.database.db, gw.blobs);
    conformance = new EffectiveAccess(await crawlAccess(gw.url, TEST_KEYS[0]));
    explorer = new AccessExplorer(gw.database.db);
  });
  afterAll(() => gw.close());

  it('answers who can see each demo file exactly as conformance who-can-see does', async () => {
    expect(conformance.fileIds.length).toBeGreaterThan(10);
    for (const fileId of conformance.fileIds) {
      const expected = conformance.whoCanSee(fileId);
      const answer = (await explorer.whoCanSee(fileId, { limit: 200 })) as FileAnswer;
      expect({ fileId, users: emails(answer.users), inactive: emails(answer.inactive), everyone: answer.everyone }).toEqual({
        fileId,
        users: emails(expected?.users ?? []),
        inactive: emails(expected?.inactive ?? []),
        everyone: expected?.everyone,
      });
      expect(answer.usersPage.total).toBe(expected?.users.length);
    }
  });

  it('answers what each demo user can see exactly as conformance what-can does (by email and by id)', async () => {
    expect(conformance.users.length).toBe(8);
    for (const user of conformance.users) {
      const expected = conformance.whatCanSee(user.email as string);
      for (const ref of [user.email as string, user.id]) {
        const answer = (await explorer.whatCanSee(ref, { limit: 200 })) as UserAnswer;
        expect({ ref, files: ids(answer.files), active: answer.user.active }).toEqual({ ref, files: ids(expected?.files ?? []), active: expected?.active });
        if (answer.user.active) expect(answer.page.total).toBe(expected?.files.length);
      }
    }
  });

  it('names the grant path: the entry, then the chain of groups down to the membership', async () => {
    const ana = (await explorer.whatCanSee('ANA.Souza@northwind.example')) as UserAnswer;
    const byFile = new Map(ana.files.map((f) => [f.id, shown(f.path)]));
    expect(byFile.get('demo:company/expense-policy.html')).toBe('GROUP demo:all-staff > demo:all-staff > demo:engineering > demo:platform-team');
    expect(byFile.get('demo:engineering/platform/kubernetes-upgrade-plan.html')).toBe('GROUP demo:platform-team > demo:platform-team');
    expect(byFile.get('demo:public/welcome-to-northwind.html')).toBe('GROUP *');
    expect(ana.files.find((f) => f.id === 'demo:company/expense-policy.html')?.path.groups.map((g) => g.name)).toEqual([
      'All Staff',
      'Engineering',
      'Platform Team',
    ]);
    const salary = (await explorer.whoCanSee('demo:hr/salary-bands-2025.docx')) as FileAnswer;
    expect(salary.users.map((u) => [u.email, shown(u.path)])).toEqual([['dana.okafor@northwind.example', expect.stringMatching(/^USER person-/)]]);
  });

  it('shows inactive users apart: on GROUP * as served, and the inactive accounts the source still names', async () => {
    const runbook = (await explorer.whoCanSee('demo:engineering/incident-response-runbook.pdf')) as FileAnswer;
    expect(emails(runbook.users)).not.toContain('gus.mendel@northwind.example');
    expect(runbook.inactiveAccounts.map((a) => [a.email, shown(a.path)])).toEqual([
      ['gus.mendel@northwind.example', 'GROUP demo:engineering > demo:engineering'],
    ]);
    const welcome = (await explorer.whoCanSee('demo:public/welcome-to-northwind.html')) as FileAnswer;
    expect(welcome.inactive.map((u) => [u.email, shown(u.path)])).toEqual([['gus.mendel@northwind.example', 'GROUP *']]);
    const gus = (await explorer.whatCanSee('gus.mendel@northwind.example')) as UserAnswer;
    expect(gus.user.active).toBe(false);
    expect(gus.files).toEqual([]);
    expect(ids(gus.wouldSee)).toEqual(expect.arrayContaining(['demo:engineering/incident-response-runbook.pdf', 'demo:public/welcome-to-northwind.html']));
  });

  it('pages long answers: limit clamped, offset honoured, totals of the whole answer', async () => {
    const all = (await explorer.whoCanSee('demo:company/expense-policy.html', { limit: 200 })) as FileAnswer;
    const first = (await explorer.whoCanSee('demo:company/expense-policy.html', { limit: 2 })) as FileAnswer;
    const second = (await explorer.whoCanSee('demo:company/expense-policy.html', { limit: 2, offset: 2 })) as FileAnswer;
    expect([...emails(first.users), ...emails(second.users)]).toEqual(emails(all.users).slice(0, 4));
    expect(first.usersPage).toEqual({ offset: 0, limit: 2, total: all.users.length, next: first.users[1]?.id });
    expect((await explorer.whoCanSee('demo:company/expense-policy.html', { limit: 10_000 }))?.usersPage.limit).toBe(200);
  });

  it('pages by cursor (after the last id): every item exactly once, in order, equal to the unpaged answer', async () => {
    /** Follows `next` from the first page to the last, with the given page size. */
    const walk = async <T>(ask: (after?: string) => Promise<{ items: T[]; next: string | null; total: number }>) => {
      const items: T[] = [];
      const totals = new Set<number>();
      let after: string | undefined;
      for (let pages = 0; pages < 1000; pages += 1) {
        const page = await ask(after);
        items.push(...page.items);
        totals.add(page.total);
        if (page.next === null) return { items, totals: [...totals] };
        after = page.next;
      }
      throw new Error('paging never ended');
    };
    const files = conformance.fileIds;
    const people = conformance.users.map((u) => u.email as string);
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...files), fc.constantFrom(...people), fc.integer({ min: 1, max: 6 }), async (fileId, email, limit) => {
        const whole = (await explorer.whoCanSee(fileId, { limit: 200 })) as FileAnswer;
        const paged = await walk(async (after) => {
          const a = (await explorer.whoCanSee(fileId, { limit, ...(after ? { after } : {}) })) as FileAnswer;
          return { items: a.users.map((u) => u.email), next: a.usersPage.next, total: a.usersPage.total };
        });
        expect(paged.items).toEqual(whole.users.map((u) => u.email));
        expect(paged.totals).toEqual([whole.usersPage.total]);
        const seen = (await explorer.whatCanSee(email, { limit: 200 })) as UserAnswer;
        const list = (a: UserAnswer) => (a.user.active ? a.files : a.wouldSee).map((f) => f.id);
        const pagedFiles = await walk(async (after) => {
          const a = (await explorer.whatCanSee(email, { limit, ...(after ? { after } : {}) })) as UserAnswer;
          return { items: list(a), next: a.page.next, total: a.page.total };
        });
        expect(pagedFiles.items).toEqual(list(seen));
        expect(new Set(pagedFiles.items).size).toBe(pagedFiles.items.length);
        expect(pagedFiles.totals).toEqual([seen.page.total]);
      }),
      { numRuns: 40 },
    );
  });

  it('answers nothing for a file or user staging does not have; a deleted file is seen by nobody', async () => {
    expect(await explorer.whoCanSee('demo:no-such-file')).toBeUndefined();
    expect(await explorer.whatCanSee('nobody@northwind.example')).toBeUndefined();
  });
});
