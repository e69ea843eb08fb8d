import { createHash } from 'node:crypto';
import { canonical, ownAttribute } from './evaluate-policy';
import type { Condition, Literal, Operand, Policy, PolicySubject } from './policy-types';

/**
 * What a policy reads of users or of documents: the attributes it names, and for list attributes
 * only ever tested with `'literal' in user.x`, just those literals. Two users (or two documents)
 * with the same projection are indistinguishable to every rule, so the compiler groups them: the
 * projection is the equivalence class.
 */
export interface Projection {
  /** Attribute name → the literals it is tested against (`undefined`: the whole value is read). */
  readonly attributes: ReadonlyMap<string, ReadonlySet<string> | undefined>;
  /** Same for `user.roles` (users only): `null` when the policy never reads roles. */
  readonly roles: ReadonlySet<string> | undefined | null;
}

/** A subject reduced to what the policy reads, with a canonical key (stable JSON). */
export interface ProjectedSubject {
  subject: PolicySubject;
  key: string;
}

type Uses = Map<string, Set<string> | undefined>;

function noteUse(uses: Uses, name: string, literal: string | undefined): void {
  if (literal === undefined) {
    uses.set(name, undefined);
    return;
  }
  if (uses.has(name) && uses.get(name) === undefined) return;
  const set = uses.get(name) ?? new Set<string>();
  set.add(literal);
  uses.set(name, set);
}

function collect(c: Condition, into: { user: Uses; doc: Uses }): void {
  if (c.kind === 'constant') return;
  if (c.kind === 'not') return collect(c.part, into);
  if (c.kind === 'and' || c.kind === 'or') return c.parts.forEach((p) => collect(p, into));
  const literalLeft = c.kind === 'in' && c.left.kind === 'literal' ? String(c.left.value) : undefined;
  const note = (o: Operand, literal: string | undefined): void => {
    if (o.kind === 'ref') noteUse(into[o.root], o.name, literal);
  };
  note(c.left, undefined);
  note(c.right, literalLeft);
}

/** The user and document projections of a policy. */
export function policyProjections(policy: Policy): { user: Projection; doc: Projection } {
  const uses = { user: new Map() as Uses, doc: new Map() as Uses };
  for (const rule of policy.rules) {
    for (const role of rule.roles) noteUse(uses.user, '\u0000roles', role.normalize('NFC'));
    collect(rule.allow, uses);
  }
  if (uses.user.has('roles')) {
    const direct = uses.user.get('roles');
    uses.user.delete('roles');
    if (direct === undefined) uses.user.set('\u0000roles', undefined);
    else for (const r of direct) noteUse(uses.user, '\u0000roles', r);
  }
  const roles = uses.user.has('\u0000roles') ? uses.user.get('\u0000roles') : null;
  uses.user.delete('\u0000roles');
  return { user: { attributes: uses.user, roles }, doc: { attributes: uses.doc, roles: null } };
}

/** Lists are sets to every test (membership only): sorted, deduplicated, narrowed to the literals tested. */
function narrow(value: Literal, only: ReadonlySet<string> | undefined): Literal {
  if (!Array.isArray(value)) return value;
  const items = value as readonly string[];
  return [...new Set(only ? items.filter((v) => only.has(v)) : items)].sort();
}

/** Reduces a subject to the projection; the key is equal exactly when the reduced subjects are. */
export function project(projection: Projection, subject: PolicySubject): ProjectedSubject {
  const entries: Array<[string, Literal]> = [];
  for (const name of [...projection.attributes.keys()].sort()) {
    const value = ownAttribute(subject, name);
    if (value !== undefined) entries.push([name, narrow(value, projection.attributes.get(name))]);
  }
  // fromEntries defines own properties, so an attribute named `__proto__` stays an attribute.
  const attributes: Record<string, Literal> = Object.fromEntries(entries);
  const reduced: PolicySubject = { attributes };
  if (projection.roles !== null && subject.roles !== undefined) reduced.roles = narrow(canonical(subject.roles), projection.roles) as readonly string[];
  return { subject: reduced, key: JSON.stringify([attributes, reduced.roles ?? null]) };
}

/** A short stable id for a class key: the same class keeps its id across syncs. */
export function classHash(kind: string, key: string): string {
  return createHash('sha256').update(kind).update('\u0000').update(key).digest('hex').slice(0, 20);
}
