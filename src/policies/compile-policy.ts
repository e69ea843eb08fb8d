import type { AccessEntry, FileRecord, GroupRecord, UserRecord } from '../adapters/adapter';
import { PolicyCompilation } from './policy-compilation';
import type { Policy } from './policy-types';

export interface CompiledPolicy {
  groups: GroupRecord[];
  /** Document native id → its access list (explicit entries, then its class group). */
  access: Map<string, AccessEntry[]>;
}

/** Compiles a policy over whole lists of users and documents (see PolicyCompilation). */
export function compilePolicy(
  policy: Policy,
  users: Iterable<Pick<UserRecord, 'nativeId' | 'active' | 'attributes' | 'roles'>>,
  docs: Iterable<Pick<FileRecord, 'nativeId' | 'attributes'> & { access?: FileRecord['access'] }>,
): CompiledPolicy {
  const compilation = new PolicyCompilation(policy);
  for (const user of users) compilation.setUser(user);
  const access = new Map<string, AccessEntry[]>();
  for (const doc of docs) access.set(doc.nativeId, compilation.documentAccess(doc));
  return { groups: compilation.groups(), access };
}
