import fs from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import pino from 'pino';
import { createFilesystemAdapter } from '../../../src/adapters/filesystem';
import { runSync } from '../../../src/sync/run-sync';
import { filesSeenByEmail } from '../../helpers/crawl-access';
import { startTestGateway, TEST_KEYS, type TestGateway } from '../../helpers/test-gateway';
import { makeDir, removeTrees, writeFiles } from './tree-fixture';

/**
 * Property: whatever an editor does to the directory file (memberships, nesting, who is active)
 * and to the access sidecars (a rule replaced, added or removed, so a folder inherits its
 * parent's), with modification times that move or are kept, every run that reports success
 * without failures leaves the gateway serving exactly the access the tree grants now. Runs are
 * incremental or full, through the real engine into a gateway on loopback.
 */
const KEY = TEST_KEYS[0];
const logger = pino({ level: 'silent' });
const USERS = ['ana', 'bo', 'cy', 'di'];
const GROUPS = ['eng', 'ops', 'all'];
/** Folders with one file each; `a/c` inherits from `a` when it has no sidecar. */
const FOLDERS = ['a', 'b', 'a/c'];

interface Rule {
  public?: boolean;
  users?: string[];
  groups?: string[];
}
interface Tree {
  active: Record<string, boolean>;
  members: Record<string, Array<{ user: string } | { group: string }>>;
  rules: Record<string, Rule | undefined>;
}

type Step =
  | { op: 'member'; group: string; user: string }
  | { op: 'nest'; group: string; sub: string }
  | { op: 'active'; user: string }
  | { op: 'rule'; folder: string; rule: Rule | undefined }
  | { op: 'sync'; mode: 'incremental' | 'full'; keepTimes: boolean };

const ruleArb: fc.Arbitrary<Rule | undefined> = fc.oneof(
  fc.constant(undefined),
  fc.constant({ public: true }),
  fc.constant({}),
  fc.record({ users: fc.subarray(USERS), groups: fc.subarray(GROUPS) }),
);
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc.record({ op: fc.constant('member' as const), group: fc.constantFrom(...GROUPS), user: fc.constantFrom(...USERS) }),
  fc.record({ op: fc.constant('nest' as const), group: fc.constantFrom(...GROUPS), sub: fc.constantFrom(...GROUPS) }),
  fc.record({ op: fc.constant('active' as const), user: fc.constantFrom(...USERS) }),
  fc.record({ op: fc.constant('rule' as const), folder: fc.constantFrom(...FOLDERS), rule: ruleArb }),
  fc.record({ op: fc.constant('sync' as const), mode: fc.constantFrom('incremental' as const, 'full' as const), keepTimes: fc.boolean() }),
);

function apply(tree: Tree, step: Step): void {
  const toggle = (group: string, member: { user: string } | { group: string }) => {
    const list = tree.members[group] ?? [];
    const at = list.findIndex((m) => JSON.stringify(m) === JSON.stringify(member));
    tree.members[group] = at >= 0 ? list.filter((_, i) => i !== at) : [...list, member];
  };
  if (step.op === 'member') toggle(step.group, { user: step.user });
  else if (step.op === 'nest' && step.group !== step.sub) toggle(step.group, { group: step.sub });
  else if (step.op === 'active') tree.active[step.user] = !tree.active[step.user];
  else if (step.op === 'rule') tree.rules[step.folder] = step.rule;
}

const yamlRule = (rule: Rule) => JSON.stringify(rule);
const directoryText = (tree: Tree) =>
  JSON.stringify({
    users: USERS.map((id) => ({ id, email: `${id}@example.com`, full_name: id, active: tree.active[id] ?? true })),
    groups: GROUPS.map((id) => ({ id, name: id, members: tree.members[id] ?? [] })),
  });

/** Writes the tree; with `keepTimes`, every control file keeps the one mtime it always had. */
function write(root: string, tree: Tree, at: Date, keepTimes: boolean): void {
  const when = keepTimes ? new Date('2025-01-01T00:00:00Z') : at;
  writeFiles(root, { '_directory.yaml': directoryText(tree) }, when);
  for (const folder of FOLDERS) {
    const file = path.join(root, folder, '_access.yaml');
    const rule = tree.rules[folder];
    if (rule === undefined) fs.rmSync(file, { force: true });
    else writeFiles(root, { [`${folder}/_access.yaml`]: `${yamlRule(rule)}\n` }, when);
  }
}

/** Who may see which file, by the tree alone: email -> sorted file ids. */
function oracle(tree: Tree): Record<string, string[]> {
  const closure = (group: string, seen = new Set<string>()): Set<string> => {
    const out = new Set<string>();
    if (seen.has(group)) return out;
    seen.add(group);
    for (const m of tree.members[group] ?? []) {
      if ('user' in m) out.add(m.user);
      else for (const u of closure(m.group, seen)) out.add(u);
    }
    return out;
  };
  const ruleOf = (folder: string): Rule | undefined => tree.rules[folder] ?? (folder === 'a/c' ? tree.rules.a : undefined);
  const out: Record<string, string[]> = Object.fromEntries(USERS.filter((u) => tree.active[u] ?? true).map((u) => [`${u}@example.com`, [] as string[]]));
  for (const folder of FOLDERS) {
    const rule = ruleOf(folder);
    const who = new Set<string>();
    if (rule?.public) for (const u of USERS) who.add(u);
    for (const u of rule?.users ?? []) who.add(u);
    for (const g of rule?.groups ?? []) for (const u of closure(g)) who.add(u);
    for (const u of who) out[`${u}@example.com`]?.push(`fs:${folder}/doc.html`);
  }
  for (const list of Object.values(out)) list.sort();
  return out;
}

const served = (gw: TestGateway): Promise<Record<string, string[]>> => filesSeenByEmail(gw.url, KEY);

describe('filesystem source, property: a successful run serves exactly what the tree grants now', () => {
  afterAll(removeTrees);

  it('holds for any sequence of directory and sidecar edits, timestamps moved or kept, incremental and full runs', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 12 }), async (steps) => {
        const gw = await startTestGateway('sqlite');
        const root = makeDir();
        const tree: Tree = {
          active: {},
          members: { eng: [{ user: 'ana' }], ops: [{ user: 'cy' }], all: [{ group: 'eng' }, { group: 'ops' }] },
          rules: { a: { groups: ['eng'] }, b: { public: true } },
        };
        let clock = Date.parse('2025-02-01T00:00:00Z');
        try {
          for (const folder of FOLDERS) writeFiles(root, { [`${folder}/doc.html`]: `<h1>${folder}</h1>` }, new Date('2025-01-01T00:00:00Z'));
          write(root, tree, new Date(clock), true);
          const sync = async (mode: 'incremental' | 'full') => {
            clock += 3_600_000;
            const adapter = createFilesystemAdapter({ root, sourceName: 'fs', baseUrl: 'https://kb.example/docs' });
            return runSync(adapter, { db: gw.database.db, blobs: gw.blobs, logger, now: () => new Date(clock) }, { mode });
          };
          expect((await sync('full')).status).toBe('succeeded');
          for (const step of [...steps, { op: 'sync', mode: 'incremental', keepTimes: true } as const]) {
            if (step.op !== 'sync') {
              apply(tree, step);
              continue;
            }
            write(root, tree, new Date(clock), step.keepTimes);
            // Every edit here is valid (no unknown name): each run must succeed, then serve exactly the tree's access.
            const summary = await sync(step.mode);
            expect([summary.status, summary.failures]).toEqual(['succeeded', []]);
            expect(await served(gw)).toEqual(oracle(tree));
          }
        } finally {
          await gw.close();
        }
      }),
      { numRuns: 25 },
    );
  }, 300_000);
});
