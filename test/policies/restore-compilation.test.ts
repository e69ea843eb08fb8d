import fc from 'fast-check';
import type { AccessEntry, GroupRecord } from '../../src/adapters/adapter';
import { compilePolicy } from '../../src/policies/compile-policy';
import { parsePolicy } from '../../src/policies/load-policy';
import { restoreCompilation, type CompiledGroup } from '../../src/policies/restore-compilation';
import { docArb, oracleGrants, renderPolicy, rulesArb, userArb, type Subject } from './policy-oracle';

type User = { active: boolean; subject: Subject };

/** Groups as staging keeps them: metadata through JSON, USER members by native id. */
function staged(groups: readonly GroupRecord[]): CompiledGroup[] {
  return groups.map((g) => ({
    nativeId: g.nativeId,
    metadata: JSON.parse(JSON.stringify(g.metadata)) as Record<string, unknown>,
    userMembers: g.members.filter((m) => m.type === 'USER').map((m) => m.nativeId),
  }));
}

function reached(access: readonly AccessEntry[], groups: ReadonlyMap<string, GroupRecord>, seen = new Set<string>()): Set<string> {
  const out = new Set<string>();
  for (const e of access) {
    if (e.type === 'USER') out.add(e.nativeId);
    else if (e.type === 'GROUP' && !seen.has(e.nativeId)) {
      seen.add(e.nativeId);
      for (const u of reached(groups.get(e.nativeId)?.members ?? [], groups, seen)) out.add(u);
    }
  }
  return out;
}

const changeArb = fc.record({
  rules: rulesArb,
  users: fc.array(userArb, { minLength: 1, maxLength: 10 }),
  docs: fc.array(docArb, { minLength: 1, maxLength: 10 }),
  /** Per user: keep, replace with new attributes, or remove (delete event). */
  userChanges: fc.array(fc.oneof(fc.constant<'keep'>('keep'), fc.constant<'remove'>('remove'), userArb), { minLength: 10, maxLength: 10 }),
  newUsers: fc.array(userArb, { maxLength: 4 }),
  docChanges: fc.array(fc.option(docArb, { nil: undefined }), { minLength: 10, maxLength: 10 }),
  newDocs: fc.array(docArb, { maxLength: 4 }),
});

describe('restoring a compilation from staged groups (incremental runs)', () => {
  it('after applying only the changes, serves exactly what the policy grants on the new state', () => {
    fc.assert(
      fc.property(changeArb, (c) => {
        const policy = parsePolicy(renderPolicy(c.rules));
        const record = (u: User, i: number) => ({ nativeId: `u${i}`, active: u.active, ...u.subject });
        const first = compilePolicy(
          policy,
          c.users.map(record),
          c.docs.map((d, i) => ({ nativeId: `d${i}`, attributes: d.attributes })),
        );
        const restored = restoreCompilation(policy, staged(first.groups));
        if (!restored) throw new Error('a compilation with document classes was not restored');
        const { compilation, userGroups } = restored;
        // The changes an incremental run yields.
        const users = new Map<string, User>(c.users.map((u, i) => [`u${i}`, u]));
        c.users.forEach((_, i) => {
          const change = c.userChanges[i];
          if (change === 'remove') {
            compilation.removeUser(`u${i}`);
            users.delete(`u${i}`);
          } else if (change && change !== 'keep') {
            compilation.setUser(record(change, i));
            users.set(`u${i}`, change);
          }
        });
        c.newUsers.forEach((u, j) => {
          compilation.setUser(record(u, 100 + j));
          users.set(`u${100 + j}`, u);
        });
        const docs = new Map<string, Subject>(c.docs.map((d, i) => [`d${i}`, d]));
        const access = new Map(first.access);
        const changedDocs: Array<[string, Subject]> = c.newDocs.map((d, j) => [`d${100 + j}`, d]);
        c.docChanges.forEach((d, i) => {
          if (d && i < c.docs.length) changedDocs.push([`d${i}`, d]);
        });
        for (const [id, doc] of changedDocs) {
          docs.set(id, doc);
          access.set(id, compilation.documentAccess(doc));
        }
        // What the engine stages: groups upserted, emptied user classes deleted.
        const groups = new Map(first.groups.map((g) => [g.nativeId, g]));
        const now = compilation.groups();
        for (const g of now) groups.set(g.nativeId, g);
        for (const id of userGroups) if (!now.some((g) => g.nativeId === id)) groups.delete(id);
        for (const [docId, doc] of docs) {
          const seen = reached(access.get(docId) ?? [], groups);
          for (const [userId, u] of users) {
            const expected = u.active && oracleGrants(c.rules, u.subject, doc);
            if (seen.has(userId) !== expected)
              throw new Error(`${expected ? 'under' : 'over'}-exposed: ${userId} ${JSON.stringify(u)} on ${docId} ${JSON.stringify(doc)}`);
          }
          // A removed user appears in no group.
          for (const userId of seen) if (!users.has(userId)) throw new Error(`${userId} was removed but still reaches ${docId}`);
        }
        return true;
      }),
      { numRuns: 300 },
    );
  });

  it('refuses to restore groups compiled under another policy', () => {
    const a = parsePolicy('version: 1\nrules:\n  - name: r\n    allow: user.d == doc.d\n');
    const b = parsePolicy('version: 1\nrules:\n  - name: r\n    allow: user.d != doc.d\n');
    const compiled = compilePolicy(a, [{ nativeId: 'u1', active: true, attributes: { d: 'x' } }], [{ nativeId: 'd1', attributes: { d: 'x' } }]);
    expect(restoreCompilation(a, staged(compiled.groups))).toBeDefined();
    expect(restoreCompilation(b, staged(compiled.groups))).toBeUndefined();
    expect(restoreCompilation(a, [])).toBeUndefined();
  });
});
