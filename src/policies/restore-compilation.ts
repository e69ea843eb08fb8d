import { PolicyCompilation, USER_CLASS_PREFIX, type PolicyClassMetadata } from './policy-compilation';
import type { Policy } from './policy-types';

/** A synthesized group as an earlier compilation produced it (and staging kept it). */
export interface CompiledGroup {
  nativeId: string;
  metadata: Record<string, unknown> | undefined;
  /** Native ids of its USER members. */
  userMembers: readonly string[];
}

/** The class a synthesized group's metadata records, or undefined when it records none (or garbage). */
export function recordedClass(group: Pick<CompiledGroup, 'metadata'>): PolicyClassMetadata | undefined {
  const meta = group.metadata?.policyClass as Partial<PolicyClassMetadata> | undefined;
  if (!meta || (meta.of !== 'users' && meta.of !== 'documents') || typeof meta.policy !== 'string' || typeof meta.subject !== 'object' || meta.subject === null)
    return undefined;
  return meta as PolicyClassMetadata;
}

/**
 * A compilation holding what earlier ones produced: every user of a user-class group in that
 * class, every document class. An incremental run then applies only the changes and compiles
 * every group again. Undefined when there is nothing to restore or when any group was compiled
 * under another policy (its classes may read other attributes): then only a full run is sound.
 */
export function restoreCompilation(policy: Policy, groups: readonly CompiledGroup[]): { compilation: PolicyCompilation; userGroups: Set<string> } | undefined {
  const compilation = new PolicyCompilation(policy);
  const classes = groups.map((group) => ({ group, meta: recordedClass(group) }));
  if (classes.length === 0 || classes.some((c) => c.meta?.policy !== compilation.fingerprint)) return undefined;
  const userGroups = new Set<string>();
  for (const { group, meta } of classes) {
    if (meta?.of === 'users' && group.nativeId.startsWith(USER_CLASS_PREFIX)) {
      userGroups.add(group.nativeId);
      for (const nativeId of group.userMembers) compilation.setUser({ nativeId, active: true, ...meta.subject });
    } else if (meta?.of === 'documents') compilation.addDocumentClass(meta.subject.attributes);
  }
  return { compilation, userGroups };
}
