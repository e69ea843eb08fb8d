import { createHash } from 'node:crypto';
import type { AccessEntry, Attributes, GroupRecord, Principal, UserRecord } from '../adapters/adapter';
import { policyGrants } from './evaluate-policy';
import { classHash, policyProjections, project, type Projection } from './policy-projection';
import type { Policy, PolicySubject } from './policy-types';

/** Native id prefixes of synthesized groups, in the adapter's namespace. */
export const USER_CLASS_PREFIX = 'policy-u-';
export const DOCUMENT_CLASS_PREFIX = 'policy-d-';

/** What a synthesized group's `metadata.policyClass` holds: its class, for incremental runs and `policy explain`. */
export interface PolicyClassMetadata {
  of: 'users' | 'documents';
  subject: PolicySubject;
  /** The policy the group was compiled under (a hash of its rules). */
  policy: string;
}

interface ClassEntry {
  id: string;
  subject: PolicySubject;
}

/** The stable hash of a policy's rules (positions left out): groups say which policy built them. */
export function policyFingerprint(policy: Policy): string {
  const rules = policy.rules.map((r) => [r.name, r.roles, JSON.stringify(r.allow, (k, v: unknown) => (k === 'at' ? undefined : v))]);
  return createHash('sha256').update(JSON.stringify(rules)).digest('hex').slice(0, 16);
}

function label(subject: PolicySubject): string {
  const parts = Object.entries(subject.attributes ?? {}).map(([k, v]) => `${k}=${Array.isArray(v) ? `[${v.join(',')}]` : String(v)}`);
  if (subject.roles) parts.push(`roles=[${subject.roles.join(',')}]`);
  const text = parts.join(', ') || 'no attributes';
  return text.length > 200 ? `${text.slice(0, 199)}…` : text;
}

/**
 * Compiles a policy into the platform's model, incrementally: feed it users (`setUser`) and
 * documents (`documentAccess`), then take `groups()`.
 *
 * - Every active user joins one **user-class group**: users whose projection (what the policy reads
 *   of them) is equal. Inactive users join none, so they see nothing through the policy.
 * - Every document's access list names one **document-class group**, shared by the documents whose
 *   projection is equal; its direct members are the user-class groups the policy grants that class.
 *
 * So the group count is (distinct user classes + distinct document classes), whatever the number
 * of users and documents, and a document's list never depends on the users: a user changing
 * department changes group members, not access lists. Ids are hashes of the class, stable across
 * syncs; output is sorted, so the same input compiles to the same groups.
 */
export class PolicyCompilation {
  readonly fingerprint: string;
  private readonly projections: { user: Projection; doc: Projection };
  private readonly userClassOf = new Map<string, string>();
  private readonly userClasses = new Map<string, ClassEntry & { members: Set<string> }>();
  private readonly docClasses = new Map<string, ClassEntry>();

  constructor(readonly policy: Policy) {
    this.fingerprint = policyFingerprint(policy);
    this.projections = policyProjections(policy);
  }

  /** Adds or replaces a user (by native id); an inactive user is removed from every class. */
  setUser(user: Pick<UserRecord, 'nativeId' | 'active' | 'attributes' | 'roles'>): void {
    this.removeUser(user.nativeId);
    if (!user.active) return;
    const { subject, key } = project(this.projections.user, user);
    let entry = this.userClasses.get(key);
    if (!entry) {
      entry = { id: USER_CLASS_PREFIX + classHash('users', key), subject, members: new Set() };
      this.userClasses.set(key, entry);
    }
    entry.members.add(user.nativeId);
    this.userClassOf.set(user.nativeId, key);
  }

  removeUser(nativeId: string): void {
    const key = this.userClassOf.get(nativeId);
    if (key === undefined) return;
    this.userClassOf.delete(nativeId);
    const entry = this.userClasses.get(key);
    entry?.members.delete(nativeId);
    if (entry && entry.members.size === 0) this.userClasses.delete(key);
  }

  /** Whether the documents with these attributes fall in a class already registered. */
  hasDocumentClass(attributes: Attributes | undefined): boolean {
    return this.docClasses.has(project(this.projections.doc, { attributes }).key);
  }

  /** Registers a document class (say, one staged by an earlier run) so `groups()` includes it. */
  addDocumentClass(attributes: Attributes | undefined): string {
    const { subject, key } = project(this.projections.doc, { attributes });
    let entry = this.docClasses.get(key);
    if (!entry) {
      entry = { id: DOCUMENT_CLASS_PREFIX + classHash('documents', key), subject };
      this.docClasses.set(key, entry);
    }
    return entry.id;
  }

  /** The document's access list: its explicit entries, then its document-class group. */
  documentAccess(doc: { attributes?: Attributes; access?: readonly AccessEntry[] }): AccessEntry[] {
    const group: Principal = { type: 'GROUP', nativeId: this.addDocumentClass(doc.attributes) };
    return [...(doc.access ?? []), group];
  }

  /** The user-class group a user is in (undefined when inactive or unknown). */
  userGroupOf(nativeId: string): string | undefined {
    const key = this.userClassOf.get(nativeId);
    return key === undefined ? undefined : this.userClasses.get(key)?.id;
  }

  /** Every synthesized group, sorted by id, members sorted. */
  groups(): GroupRecord[] {
    const userClasses = [...this.userClasses.values()].sort((a, b) => compare(a.id, b.id));
    const meta = (of: PolicyClassMetadata['of'], subject: PolicySubject) => ({
      policyClass: { of, subject, policy: this.fingerprint } satisfies PolicyClassMetadata,
    });
    const out: GroupRecord[] = userClasses.map((c) => ({
      nativeId: c.id,
      name: `Policy users: ${label(c.subject)}`,
      members: [...c.members].sort(compare).map((id): Principal => ({ type: 'USER', nativeId: id })),
      metadata: meta('users', c.subject),
    }));
    const docClasses = [...this.docClasses.values()].sort((a, b) => compare(a.id, b.id));
    for (const d of docClasses) {
      const granted = userClasses.filter((u) => policyGrants(this.policy, u.subject, d.subject));
      out.push({
        nativeId: d.id,
        name: `Policy readers of: ${label(d.subject)}`,
        members: granted.map((u): Principal => ({ type: 'GROUP', nativeId: u.id })),
        metadata: meta('documents', d.subject),
      });
    }
    return out;
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
