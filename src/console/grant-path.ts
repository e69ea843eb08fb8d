import { chunks } from '../lib/chunks';
import { parseJsonObject } from '../lib/parse-json-object';
import { explainAccess } from '../policies/explain-access';
import { DOCUMENT_CLASS_PREFIX, USER_CLASS_PREFIX } from '../policies/policy-compilation';
import type { Policy } from '../policies/policy-types';
import { recordedClass } from '../policies/restore-compilation';
import type { Db } from '../staging/database/create-db';

/** The access entry on the file a grant starts from, as the gateway serves it. */
export interface GrantEntry {
  type: 'USER' | 'GROUP';
  /** A served id: a person, a group, or `*` (every user). */
  id: string;
}

/** The policy rule behind a chain whose groups an access policy compiled (docs/access-policies.md). */
export interface PolicyStep {
  /** The fingerprint of the policy the groups were compiled under. */
  policy: string;
  /** The first rule granting the user's class the document's class, when the source's policy file was given. */
  rule?: string;
  because?: string;
}

/**
 * Why a user sees a file: the entry on its access list, the chain of groups from the entry's group
 * down to the group listing the user directly (empty for a `USER` entry and for `GROUP *`), and the
 * policy rule when a policy compiled that chain.
 */
export interface GrantPath {
  entry: GrantEntry;
  groups: Array<{ id: string; name: string | null }>;
  policy?: PolicyStep;
}

interface GroupInfo {
  id: string;
  name: string | null;
  source: string;
  nativeId: string;
  metadata: Record<string, unknown> | undefined;
}

/** Turns chains of group ids into grant paths: names the groups and finds the policy rule. Policies by source name. */
export class GrantPaths {
  private readonly groups = new Map<string, GroupInfo>();

  constructor(
    private readonly db: Db,
    private readonly policies: Readonly<Record<string, Policy>> = {},
  ) {}

  /** Reads the groups the chains name (one statement per 500). */
  async load(chains: ReadonlyArray<readonly string[]>): Promise<void> {
    const ids = [...new Set(chains.flat())].filter((id) => !this.groups.has(id));
    for (const part of chunks(ids, 500)) {
      const rows = (await this.db('groups').whereIn('id', part).select('id', 'name', 'source', 'native_id', 'metadata')) as Array<{
        id: string;
        name: string | null;
        source: string;
        native_id: string;
        metadata: string | null;
      }>;
      for (const r of rows) this.groups.set(r.id, { id: r.id, name: r.name, source: r.source, nativeId: r.native_id, metadata: parseJsonObject(r.metadata) });
    }
  }

  /** The path of a grant by `entry`, through `chain` (group ids, the entry's group first; loaded first). */
  path(entry: GrantEntry, chain: readonly string[]): GrantPath {
    const path: GrantPath = { entry, groups: chain.map((id) => ({ id, name: this.groups.get(id)?.name ?? null })) };
    const policy = this.policyStep(chain);
    if (policy) path.policy = policy;
    return path;
  }

  /** A document-class group listing a user-class group: the policy's compiled grant, and the rule that made it. */
  private policyStep(chain: readonly string[]): PolicyStep | undefined {
    const doc = this.groups.get(chain[0] ?? '');
    const user = this.groups.get(chain[1] ?? '');
    if (!doc || !user || !doc.nativeId.startsWith(DOCUMENT_CLASS_PREFIX) || !user.nativeId.startsWith(USER_CLASS_PREFIX)) return undefined;
    const docClass = recordedClass(doc);
    const userClass = recordedClass(user);
    if (!docClass || !userClass) return undefined;
    const step: PolicyStep = { policy: docClass.policy };
    const policy = this.policies[doc.source];
    const granting = policy ? explainAccess(policy, userClass.subject, docClass.subject).rules.find((r) => r.grants) : undefined;
    if (granting) {
      step.rule = granting.rule;
      step.because = granting.because;
    }
    return step;
  }
}

/** Prefers the most specific grant: the user named, then the shortest chain of groups, then the wildcard. */
export function preferredGrant(paths: readonly GrantPath[]): GrantPath | undefined {
  const rank = (p: GrantPath): number => (p.entry.type === 'USER' ? -1 : p.entry.id === '*' ? Number.MAX_SAFE_INTEGER : p.groups.length);
  return [...paths].sort((a, b) => rank(a) - rank(b) || a.entry.id.localeCompare(b.entry.id))[0];
}
