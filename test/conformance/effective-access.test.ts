import fc from 'fast-check';
import { readReportAsset } from '../../src/conformance/report/report-assets';
import type { Principal } from '../../src/conformance/crawl/crawl-record';
import { EffectiveAccess, findGroupCycles, type AccessInput } from '../../src/conformance/access/effective-access';

interface Graph {
  users: Array<{ id: string; email: string; state: 'Active' | 'Inactive' }>;
  groups: Array<{ id: string; members: { entries: Principal[] } }>;
  files: Array<{ id: string; status: 'active' | 'deleted'; permissions: Principal[] }>;
}

/** Random directories and access lists, cycles and self-membership included. */
const graphs: fc.Arbitrary<Graph> = fc
  .record({ users: fc.integer({ min: 1, max: 7 }), groups: fc.integer({ min: 0, max: 6 }), files: fc.integer({ min: 1, max: 5 }) })
  .chain(({ users, groups, files }) => {
    const userIds = Array.from({ length: users }, (_, i) => `u${i}`);
    const groupIds = Array.from({ length: groups }, (_, i) => `g${i}`);
    const member = fc.oneof(
      fc.constantFrom(...userIds).map((id): Principal => ({ type: 'USER', id })),
      ...(groupIds.length ? [fc.constantFrom(...groupIds).map((id): Principal => ({ type: 'GROUP', id }))] : []),
    );
    const entry = fc.oneof(
      { weight: 6, arbitrary: member.map((p) => ({ ...p, action: 'VIEW' })) },
      { weight: 1, arbitrary: fc.constant<Principal>({ type: 'GROUP', id: '*', action: 'VIEW' }) },
      { weight: 1, arbitrary: fc.constant<Principal>({ type: 'USER', id: '*', action: 'VIEW' }) },
      { weight: 1, arbitrary: fc.constant<Principal>({ type: 'USER', id: 'nobody', action: 'VIEW' }) },
      { weight: 1, arbitrary: member.map((p) => ({ ...p, action: 'UPDATE' })) },
    );
    return fc.record({
      users: fc.tuple(
        ...userIds.map((id) => fc.boolean().map((active) => ({ id, email: `${id}@x.example`, state: active ? ('Active' as const) : ('Inactive' as const) }))),
      ),
      groups: groupIds.length
        ? fc.tuple(...groupIds.map((id) => fc.array(member, { maxLength: 5 }).map((entries) => ({ id, members: { entries } }))))
        : fc.constant([]),
      files: fc.tuple(
        ...Array.from({ length: files }, (_, i) =>
          fc.record({
            id: fc.constant(`f${i}`),
            status: fc.constantFrom('active' as const, 'active' as const, 'deleted' as const),
            permissions: fc.array(entry, { maxLength: 4 }),
          }),
        ),
      ),
    });
  });

/** The obvious fixpoint: keep adding nested members until nothing changes. */
function referenceCanSee(g: Graph, userId: string, fileId: string): boolean {
  const members = new Map<string, Set<string>>(g.groups.map((x) => [x.id, new Set(x.members.entries.filter((m) => m.type === 'USER').map((m) => m.id))]));
  for (let changed = true; changed;) {
    changed = false;
    for (const x of g.groups) {
      const set = members.get(x.id) as Set<string>;
      for (const m of x.members.entries) {
        if (m.type !== 'GROUP') continue;
        for (const u of members.get(m.id) ?? []) {
          if (set.has(u)) continue;
          set.add(u);
          changed = true;
        }
      }
    }
  }
  const user = g.users.find((u) => u.id === userId);
  const file = g.files.find((f) => f.id === fileId);
  if (!user || user.state === 'Inactive' || !file || file.status === 'deleted') return false;
  return file.permissions.some(
    (p) =>
      p.action === 'VIEW' &&
      ((p.type === 'GROUP' && p.id === '*') || (p.type === 'USER' && p.id === userId) || (p.type === 'GROUP' && members.get(p.id)?.has(userId) === true)),
  );
}

const access = (g: Graph) => new EffectiveAccess(g as AccessInput);

describe('EffectiveAccess', () => {
  const graph: Graph = {
    users: [
      { id: 'ana', email: 'ana@x.example', state: 'Active' },
      { id: 'bo', email: 'bo@x.example', state: 'Inactive' },
      { id: 'cy', email: 'cy@x.example', state: 'Active' },
    ],
    groups: [
      { id: 'all', members: { entries: [{ type: 'GROUP', id: 'eng' }] } },
      {
        id: 'eng',
        members: {
          entries: [
            { type: 'GROUP', id: 'plat' },
            { type: 'USER', id: 'bo' },
          ],
        },
      },
      {
        id: 'plat',
        members: {
          entries: [
            { type: 'USER', id: 'ana' },
            { type: 'GROUP', id: 'all' },
          ],
        },
      }, // a cycle
    ],
    files: [
      {
        id: 'doc',
        status: 'active',
        permissions: [
          { type: 'GROUP', id: 'all', action: 'VIEW' },
          { type: 'USER', id: '*', action: 'VIEW' },
          { type: 'USER', id: 'ghost', action: 'VIEW' },
        ],
      },
      { id: 'pub', status: 'active', permissions: [{ type: 'GROUP', id: '*', action: 'VIEW' }] },
      { id: 'old', status: 'deleted', permissions: [{ type: 'GROUP', id: '*', action: 'VIEW' }] },
    ],
  };

  it('expands nested groups through a cycle, lists inactive users apart, and reports what grants nothing', () => {
    const a = access(graph).whoCanSee('doc');
    expect(a?.users.map((u) => [u.email, u.via])).toEqual([['ana@x.example', 'GROUP all']]);
    expect(a?.inactive.map((u) => u.email)).toEqual(['bo@x.example']);
    expect(a?.unresolved).toEqual([{ type: 'USER', id: 'ghost', action: 'VIEW' }]);
    expect(a?.ignored).toEqual([{ type: 'USER', id: '*', action: 'VIEW' }]);
    expect(findGroupCycles(graph.groups)).toEqual([['all', 'eng', 'plat']]);
  });

  it('answers what a user can see (deleted files left out), by email in any case, and what an inactive user would see', () => {
    const a = access(graph);
    expect(a.whatCanSee('ANA@x.example')?.files.map((f) => [f.id, f.via])).toEqual([
      ['doc', 'GROUP all'],
      ['pub', 'GROUP *'],
    ]);
    const bo = a.whatCanSee('bo@x.example');
    expect(bo?.active).toBe(false);
    expect(bo?.files).toEqual([]);
    expect(bo?.wouldSee.map((f) => f.id)).toEqual(['doc', 'pub']);
    expect(a.canSee('cy@x.example', 'pub')).toBe(true);
    expect(a.canSee('cy@x.example', 'doc')).toBe(false);
    expect(a.whatCanSee('nobody@x.example')).toBeUndefined();
  });

  it('agrees with a plain fixpoint on random graphs, cycles included (and terminates)', () => {
    fc.assert(
      fc.property(graphs, (g) => {
        const a = access(g);
        for (const u of g.users) for (const f of g.files) expect(a.canSee(u.email, f.id)).toBe(referenceCanSee(g, u.id, f.id));
      }),
      { numRuns: 300 },
    );
  });

  it('never removes access when a member is added to a group', () => {
    fc.assert(
      fc.property(graphs, fc.nat(), fc.nat(), fc.boolean(), (g, gi, mi, asGroup) => {
        if (g.groups.length === 0) return;
        const before = access(g);
        const target = g.groups[gi % g.groups.length] as Graph['groups'][number];
        const added: Principal = asGroup
          ? { type: 'GROUP', id: (g.groups[mi % g.groups.length] as Graph['groups'][number]).id }
          : { type: 'USER', id: (g.users[mi % g.users.length] as Graph['users'][number]).id };
        const grown: Graph = { ...g, groups: g.groups.map((x) => (x === target ? { id: x.id, members: { entries: [...x.members.entries, added] } } : x)) };
        const after = access(grown);
        for (const u of g.users) for (const f of g.files) if (before.canSee(u.email, f.id)) expect(after.canSee(u.email, f.id)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });

  it('grants every active user, and no inactive one, through the wildcard GROUP *', () => {
    fc.assert(
      fc.property(graphs, fc.nat(), (g, fi) => {
        const file = g.files[fi % g.files.length] as Graph['files'][number];
        const opened: Graph = {
          ...g,
          files: g.files.map((f) => (f === file ? { ...f, status: 'active', permissions: [...f.permissions, { type: 'GROUP', id: '*', action: 'VIEW' }] } : f)),
        };
        const a = access(opened);
        const answer = a.whoCanSee(file.id);
        expect(answer?.everyone).toBe(true);
        expect(answer?.users.map((u) => u.id).sort()).toEqual(
          g.users
            .filter((u) => u.state === 'Active')
            .map((u) => u.id)
            .sort(),
        );
        for (const u of g.users) expect(a.canSee(u.email, file.id)).toBe(u.state === 'Active');
      }),
      { numRuns: 200 },
    );
  });

  it("gives the HTML report's explorer (browser JavaScript) the same answers", () => {
    const buildAccess = new Function(`${readReportAsset('access-explorer.js')}\nreturn buildAccess;`)() as (d: unknown) => {
      whoCanSee(i: number): { everyone: boolean; users: Array<{ user: number; via: string }>; inactive: Array<{ user: number }> };
      whatCanSee(i: number): Array<{ file: number; via: string }>;
    };
    fc.assert(
      fc.property(graphs, (g) => {
        const ts = access(g);
        const js = buildAccess({
          users: g.users.map((u) => ({ id: u.id, email: u.email, active: u.state === 'Active' })),
          groups: g.groups.map((x) => ({ id: x.id, members: x.members.entries.map((m) => [m.type, m.id]) })),
          files: g.files.map((f) => ({ id: f.id, status: f.status, permissions: f.permissions.map((p) => [p.type, p.id, p.action]) })),
        });
        g.files.forEach((f, i) => {
          const a = ts.whoCanSee(f.id);
          const b = js.whoCanSee(i);
          expect(b.everyone).toBe(a?.everyone);
          expect(b.users.map((x) => `${g.users[x.user]?.id} ${x.via}`).sort()).toEqual(a?.users.map((u) => `${u.id} ${u.via}`).sort());
          expect(b.inactive.map((x) => g.users[x.user]?.id).sort()).toEqual(a?.inactive.map((u) => u.id).sort());
        });
        g.users.forEach((u, i) => {
          const a = ts.whatCanSee(u.email);
          const expected = [...(a?.files ?? []), ...(a?.wouldSee ?? [])].map((f) => `${f.id} ${f.via}`).sort();
          expect(
            js
              .whatCanSee(i)
              .map((x) => `${g.files[x.file]?.id} ${x.via}`)
              .sort(),
          ).toEqual(expected);
        });
      }),
      { numRuns: 200 },
    );
  });
});
