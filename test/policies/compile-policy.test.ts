import fc from 'fast-check';
import type { AccessEntry, GroupRecord } from '../../src/adapters/adapter';
import { compilePolicy } from '../../src/policies/compile-policy';
import { parsePolicy } from '../../src/policies/load-policy';
import { docArb, oracleGrants, renderPolicy, rulesArb, userArb, type Rule, type Subject } from './policy-oracle';

/** The users a compiled access list reaches, expanding nested groups (as the platform does). */
function expand(access: readonly AccessEntry[], groups: ReadonlyMap<string, GroupRecord>): Set<string> {
  const users = new Set<string>();
  const visit = (entries: readonly AccessEntry[], seen: Set<string>): void => {
    for (const e of entries) {
      if (e.type === 'USER') users.add(e.nativeId);
      else if (e.type === 'GROUP' && !seen.has(e.nativeId)) {
        seen.add(e.nativeId);
        const group = groups.get(e.nativeId);
        if (!group) throw new Error(`access names an unknown group ${e.nativeId}`);
        visit(group.members, seen);
      }
    }
  };
  visit(access, new Set());
  return users;
}

/** What the policy reads of a subject, found from the rendered policy text (not from the compiler). */
function relevantKey(text: string, root: 'user' | 'doc', s: Subject): string {
  const names = [...new Set([...text.matchAll(new RegExp(`${root}\\.(\\w+)`, 'g'))].map((m) => m[1] as string))].sort();
  const roles = root === 'user' && (/roles:/.test(text) || names.includes('roles')) ? [...(s.roles ?? ['<absent>'])].sort() : [];
  return JSON.stringify([names.map((n) => [n, s.attributes[n] ?? null]), roles]);
}

const corpusArb = fc.record({
  rules: rulesArb,
  users: fc.array(userArb, { minLength: 0, maxLength: 14 }),
  docs: fc.array(fc.record({ doc: docArb, explicit: fc.option(fc.nat({ max: 13 }), { nil: undefined, freq: 5 }) }), { minLength: 1, maxLength: 14 }),
});

type Corpus = { rules: Rule[]; users: { active: boolean; subject: Subject }[]; docs: { doc: Subject; explicit?: number }[] };

function compileCorpus({ rules, users, docs }: Corpus) {
  const text = renderPolicy(rules);
  const policy = parsePolicy(text);
  const userRecords = users.map((u, i) => ({ nativeId: `u${i}`, active: u.active, ...u.subject }));
  const docRecords = docs.map((d, i) => ({
    nativeId: `d${i}`,
    attributes: d.doc.attributes,
    access: d.explicit !== undefined && d.explicit < users.length ? [{ type: 'USER' as const, nativeId: `u${d.explicit}` }] : [],
  }));
  return { text, compiled: compilePolicy(policy, userRecords, docRecords), docRecords };
}

describe('the policy compiler', () => {
  it('exposes every document to exactly the users the policy grants (0 over-, 0 under-exposed)', () => {
    fc.assert(
      fc.property(corpusArb, (corpus) => {
        const { compiled, docRecords } = compileCorpus(corpus);
        const groups = new Map(compiled.groups.map((g) => [g.nativeId, g]));
        docRecords.forEach((doc, d) => {
          const reached = expand(compiled.access.get(doc.nativeId) ?? [], groups);
          corpus.users.forEach((user, u) => {
            const explicit = doc.access.some((e) => e.nativeId === `u${u}`);
            const expected = explicit || (user.active && oracleGrants(corpus.rules, user.subject, corpus.docs[d]!.doc));
            if (reached.has(`u${u}`) !== expected) {
              throw new Error(`${expected ? 'under' : 'over'}-exposed: user u${u} ${JSON.stringify(user)} on doc d${d} ${JSON.stringify(corpus.docs[d])}`);
            }
          });
        });
      }),
      { numRuns: 400 },
    );
  });

  it('makes at most one group per distinct relevant user class and per distinct relevant document class', () => {
    fc.assert(
      fc.property(corpusArb, (corpus) => {
        const { text, compiled } = compileCorpus(corpus);
        const userClasses = new Set(corpus.users.filter((u) => u.active).map((u) => relevantKey(text, 'user', u.subject)));
        const docClasses = new Set(corpus.docs.map((d) => relevantKey(text, 'doc', d.doc)));
        const userGroups = compiled.groups.filter((g) => g.members.every((m) => m.type === 'USER') && g.nativeId.startsWith('policy-u-'));
        const docGroups = compiled.groups.filter((g) => g.nativeId.startsWith('policy-d-'));
        expect(userGroups.length + docGroups.length).toBe(compiled.groups.length);
        expect(userGroups.length).toBeLessThanOrEqual(userClasses.size);
        expect(docGroups.length).toBeLessThanOrEqual(docClasses.size);
        // Each document names exactly one synthesized group besides its explicit entries.
        for (const list of compiled.access.values()) expect(list.filter((e) => e.type === 'GROUP')).toHaveLength(1);
      }),
      { numRuns: 200 },
    );
  });

  it('compiles the same input to the same groups and ids, in any input order', () => {
    fc.assert(
      fc.property(corpusArb, (corpus) => {
        const a = compileCorpus(corpus).compiled;
        const users = corpus.users.map((u, i) => ({ u, i })).reverse();
        const policy = parsePolicy(renderPolicy(corpus.rules));
        const b = compilePolicy(
          policy,
          users.map(({ u, i }) => ({ nativeId: `u${i}`, active: u.active, ...u.subject })),
          [...a.access.keys()].reverse().map((id) => ({ nativeId: id, attributes: corpus.docs[Number(id.slice(1))]!.doc.attributes })),
        );
        expect(b.groups).toEqual(a.groups);
      }),
      { numRuns: 100 },
    );
  });
});
