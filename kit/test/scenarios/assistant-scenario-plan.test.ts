import fc from 'fast-check';
import { judgeAnswer, OracleView, UsageLedger } from '../../src/scenarios/assistant/answer-judge';
import { codeNameFor, questionAbout } from '../../src/scenarios/assistant/code-names';
import { planQuestions, revocationProbes, revokedPairs, type Asker } from '../../src/scenarios/assistant/question-plan';
import { askRound, summariseRound } from '../../src/scenarios/assistant/ask-round';
import { scenarioChecks } from '../../src/scenarios/assistant/assistant-report';
import type { ScenarioPlatform, SeenAnswer } from '../../src/scenarios/assistant/scenario-platform';
import { compareUsage } from '../../src/scenarios/assistant/usage-agreement';
import type { UsageReport } from 'content-gateway/platform';

const users = ['u1', 'u2', 'u3', 'u4', 'u5', 'u6'];
/** task gid → a subset of the users. */
const visibilityArb = fc.dictionary(fc.stringMatching(/^t[0-9]{1,3}$/), fc.subarray(users), { minKeys: 1, maxKeys: 25 }).map((d) => new Map(Object.entries(d)));
const askers: Asker[] = users.map((user) => ({ user, email: `${user}@northwind.example` }));

describe('code names', () => {
  it('are deterministic, and no word of one is a word of another', () => {
    const taken = new Set<string>();
    const names = Array.from({ length: 3000 }, (_, i) => codeNameFor('s', `g${i}`, taken));
    const words = names.flatMap((n) => n.toLowerCase().split(' '));
    expect(new Set(words).size).toBe(words.length);
    expect(codeNameFor('s', 'g0', new Set())).toBe(names[0]);
    expect(codeNameFor('other seed', 'g0', new Set())).not.toBe(names[0]);
    expect(questionAbout('Dorvakel Mizunot', 0)).toContain('Dorvakel Mizunot');
  });
});

describe('planQuestions', () => {
  it('asks each person about distinct tasks, flags each by the oracle, and balances the two sides when it can', () => {
    fc.assert(
      fc.property(visibilityArb, fc.integer({ min: 1, max: 8 }), (visibility, perUser) => {
        const codes = new Map([...visibility.keys()].map((t, i) => [t, `Code ${i}`]));
        const plan = planQuestions(askers, visibility, codes, perUser, 'seed');
        for (const asker of askers) {
          const mine = plan.filter((q) => q.asker.user === asker.user);
          expect(mine).toHaveLength(Math.min(perUser, visibility.size));
          expect(new Set(mine.map((q) => q.task)).size).toBe(mine.length);
          for (const q of mine) {
            expect(q.visible).toBe((visibility.get(q.task) ?? []).includes(asker.user));
            expect(q.text).toContain(codes.get(q.task));
          }
          const seen = [...visibility.values()].filter((u) => u.includes(asker.user)).length;
          const unseen = visibility.size - seen;
          const half = Math.ceil(perUser / 2);
          if (seen >= half && unseen >= perUser - half) expect(mine.filter((q) => q.visible)).toHaveLength(half);
        }
        expect(planQuestions(askers, visibility, codes, perUser, 'seed')).toEqual(plan);
      }),
    );
  });
});

describe('revokedPairs and revocationProbes', () => {
  it('finds exactly the pairs granted before and not after, and probes each task before any task twice', () => {
    fc.assert(
      fc.property(visibilityArb, visibilityArb, fc.integer({ min: 1, max: 40 }), (before, after, limit) => {
        const pairs = revokedPairs(before, after);
        const want = [...before].flatMap(([task, us]) => us.filter((u) => !(after.get(task) ?? []).includes(u)).map((user) => `${user}/${task}`));
        expect(pairs.map((p) => `${p.user}/${p.task}`).sort()).toEqual(want.sort());
        const codes = new Map([...before.keys()].map((t) => [t, `Code ${t}`]));
        const probes = revocationProbes(pairs, new Map(askers.map((a) => [a.user, a])), codes, limit, 's');
        expect(probes.length).toBe(Math.min(limit, pairs.length));
        for (const p of probes) expect(pairs.some((x) => x.user === p.asker.user && x.task === p.task)).toBe(true);
        const tasks = new Set(pairs.map((p) => p.task));
        if (limit >= tasks.size) expect(new Set(probes.map((p) => p.task))).toEqual(tasks);
      }),
    );
  });
});

describe('judgeAnswer', () => {
  const oracle = new OracleView(
    new Map([
      ['1', ['u1']],
      ['2', ['u1', 'u2']],
    ]),
    new Map([['9', ['u2']]]),
  );
  const byUrl = new Map([
    ['https://wm/1', 'wm:task:1'],
    ['https://wm/2', 'wm:task:2'],
    ['https://wm/9', 'wm:attachment:9'],
    ['https://wm/gone', 'wm:task:3'],
  ]);
  const answer = (...urls: string[]): SeenAnswer => ({
    email: 'u@x',
    conversationId: 'c',
    responseId: 'r',
    messageId: 'm',
    citationUrls: urls,
    feedback: null,
  });
  const q = (user: string, task: string) => ({ asker: { user, email: `${user}@x` }, task, text: 'q', visible: true });

  it('counts a citation the oracle does not grant the asker as leaked, a deleted file included', () => {
    expect(judgeAnswer(q('u1', '1'), answer('https://wm/1', 'https://wm/2'), byUrl, oracle, 'wm').leaked).toEqual([]);
    expect(judgeAnswer(q('u2', '2'), answer('https://wm/2', 'https://wm/1', 'https://wm/9'), byUrl, oracle, 'wm').leaked).toEqual(['wm:task:1']);
    expect(judgeAnswer(q('u1', '1'), answer('https://wm/1', 'https://wm/9', 'https://wm/gone'), byUrl, oracle, 'wm').leaked).toEqual([
      'wm:attachment:9',
      'wm:task:3',
    ]);
  });

  it('counts a visible target not cited as missed, and a URL no gateway file has as unresolved', () => {
    expect(judgeAnswer(q('u2', '2'), answer('https://wm/9'), byUrl, oracle, 'wm')).toMatchObject({ missed: true, targetVisible: true });
    expect(judgeAnswer(q('u2', '1'), answer('https://wm/9'), byUrl, oracle, 'wm')).toMatchObject({ missed: false, targetVisible: false });
    expect(judgeAnswer(q('u1', '1'), answer('https://elsewhere/x', 'https://wm/1'), byUrl, oracle, 'wm')).toMatchObject({
      unresolved: ['https://elsewhere/x'],
      cited: ['wm:task:1'],
      missed: false,
    });
  });

  it('keeps per-file totals in the ledger', () => {
    const ledger = new UsageLedger();
    ledger.surfaced(['a', 'b', 'a']);
    ledger.cited(['a']);
    ledger.feedback(['a', 'b'], 'unhelpful');
    expect(ledger.all()).toEqual([
      { file: 'a', surfaced: 2, cited: 1, helpful: 0, unhelpful: 1 },
      { file: 'b', surfaced: 1, cited: 0, helpful: 0, unhelpful: 1 },
    ]);
    expect(ledger.totals()).toEqual({ surfaced: 3, cited: 1, helpful: 0, unhelpful: 2 });
  });
});

describe('compareUsage', () => {
  const ledger = new UsageLedger();
  ledger.surfaced(['wm:task:1', 'wm:task:1', 'wm:task:2']);
  ledger.cited(['wm:task:1', 'wm:task:2']);
  ledger.feedback(['wm:task:1'], 'helpful');
  const file = (id: string, status: 'active' | 'deleted', surfaced: number, cited: number, helpful: number) => ({
    id,
    name: id,
    status,
    surfaced,
    cited,
    helpful,
    unhelpful: 0,
  });
  const report = (files: ReturnType<typeof file>[]): UsageReport =>
    ({
      files,
      neverSurfaced: files.filter((f) => f.status === 'active' && f.surfaced === 0).map((f) => f.id),
      staleCitations: files.filter((f) => f.status !== 'active' && f.cited > 0),
    }) as unknown as UsageReport;
  const listed = ['wm:task:1', 'wm:task:2', 'wm:task:3'];
  const deleted = (id: string) => id === 'wm:task:2';

  it('agrees when usage reports what the scenario recorded', () => {
    const a = compareUsage(
      report([file('wm:task:1', 'active', 2, 1, 1), file('wm:task:2', 'deleted', 1, 1, 0), file('wm:task:3', 'active', 0, 0, 0)]),
      ledger,
      listed,
      deleted,
    );
    expect(a).toMatchObject({ ok: true, differences: [], staleCitations: { expected: ['wm:task:2'] }, neverSurfaced: { expected: ['wm:task:3'] } });
  });

  it('names every field that differs, and a stale citation or never-surfaced file usage got wrong', () => {
    const a = compareUsage(
      report([
        file('wm:task:1', 'active', 2, 1, 0),
        file('wm:task:2', 'active', 1, 1, 0),
        file('wm:task:3', 'active', 0, 0, 0),
        file('wm:task:4', 'active', 1, 0, 0),
      ]),
      ledger,
      listed,
      deleted,
    );
    expect(a.ok).toBe(false);
    expect(a.differences).toEqual([
      { file: 'wm:task:1', field: 'helpful', recorded: 1, reported: 0 },
      { file: 'wm:task:4', field: 'surfaced', recorded: 0, reported: 1 },
    ]);
    expect(a.staleCitations).toEqual({ expected: ['wm:task:2'], reported: [] });
    expect(compareUsage(report([file('wm:task:1', 'active', 2, 1, 1), file('wm:task:2', 'deleted', 1, 1, 0)]), ledger, listed, deleted)).toMatchObject({
      ok: false,
      neverSurfaced: { expected: ['wm:task:3'], reported: [] },
    });
  });
});

describe('askRound: each answer is read and rated by another asker, who must be refused', () => {
  const oracle = new OracleView(
    new Map([
      ['1', ['u1']],
      ['2', ['u2']],
    ]),
    new Map(),
  );
  const fileByUrl = new Map([
    ['https://wm/1', 'wm:task:1'],
    ['https://wm/2', 'wm:task:2'],
  ]);
  const questions = [
    { asker: askers[0] as Asker, task: '1', text: 'about 1', visible: true },
    { asker: askers[1] as Asker, task: '2', text: 'about 2', visible: true },
  ];
  /** A platform whose conversations are readable by anyone when `open` (the defect) and their asker's only otherwise. */
  const platform = (open: boolean): ScenarioPlatform & { reads: Array<[string, string]> } => {
    const reads: Array<[string, string]> = [];
    return {
      reads,
      ask: async (email, text) => ({
        email,
        conversationId: `c-${email}`,
        responseId: 'r',
        messageId: 'm',
        citationUrls: [`https://wm/${text.slice(-1)}`],
        feedback: null,
      }),
      readAs: async (email, answer) => {
        reads.push([email, answer.conversationId]);
        return open ? { refused: false, citationUrls: answer.citationUrls, rated: false } : { refused: true };
      },
      ingest: async () => ({ status: 'succeeded', files: 0 }),
      feedback: async () => undefined,
      pluginResources: async () => [],
      count: async () => 0,
      usage: async () => {
        throw new Error('not used');
      },
    };
  };
  const ctx = (p: ScenarioPlatform) => ({ platform: p, fileByUrl, oracle, source: 'wm', ledger: new UsageLedger(), feedbackEvery: 0, citing: { count: 0 } });

  it('tries every answer as the next asker, and counts nothing when each is refused', async () => {
    const p = platform(false);
    const round = await askRound('r', questions, ctx(p));
    expect(p.reads).toEqual([
      [askers[1]?.email, `c-${askers[0]?.email}`],
      [askers[0]?.email, `c-${askers[1]?.email}`],
    ]);
    expect(round.foreignReads).toEqual({ tried: 2, leaks: [] });
  });

  it('reports a conversation another asker could read, with the citations shown that the reader may not see, and fails the check', async () => {
    const round = summariseRound(await askRound('r', questions, ctx(platform(true))));
    expect(round.foreignReads.leaks).toEqual([
      { reader: askers[1]?.email, owner: askers[0]?.email, conversationId: `c-${askers[0]?.email}`, rated: false, files: ['wm:task:1'] },
      { reader: askers[0]?.email, owner: askers[1]?.email, conversationId: `c-${askers[1]?.email}`, rated: false, files: ['wm:task:2'] },
    ]);
    const revocation = {
      revokedPairs: 0,
      probes: 0,
      grantedPairs: 0,
      grantProbes: 0,
      probesByChange: { deletedTasks: 0, movedTasks: 0, removedMember: 0, deactivatedGuest: 0 },
      cycles: [],
      cyclesToStop: null,
    };
    const dataApi = { ok: true, records: 0, counts: [], disagreements: [] };
    const usage = { ok: true, files: 0, differences: [], staleCitations: { expected: [], reported: [] }, neverSurfaced: { expected: [], reported: [] } };
    const check = scenarioChecks([round], revocation, dataApi, usage).find((c) => c.name.startsWith('no conversation read'));
    expect(check).toMatchObject({ ok: false, detail: expect.stringContaining('2 of 2 not refused (2 citations shown') });
  });
});
