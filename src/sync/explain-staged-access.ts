import { explainAccess, type RuleVerdict } from '../policies/explain-access';
import { DOCUMENT_CLASS_PREFIX, policyFingerprint, USER_CLASS_PREFIX } from '../policies/policy-compilation';
import type { Policy, PolicySubject } from '../policies/policy-types';
import { recordedClass } from '../policies/restore-compilation';
import type { Db } from '../staging/database/create-db';
import { PolicyGroupsRepository } from '../staging/repositories/policy-groups-repository';

export interface StagedExplanation {
  file: { id: string; source: string; status: string };
  user: { id: string; email: string; state: string };
  /** Whether the policy grants (false for an inactive user whatever the rules say). */
  granted: boolean;
  rules: RuleVerdict[];
  /** Why the rules were not (or not fully) evaluated: an inactive user, no staged class. */
  notes: string[];
  /** Access entries besides the policy's group that name this user directly, or the wildcard. */
  explicit: string[];
  /** Other groups on the file's list (the adapter's own; not expanded here). */
  otherGroups: string[];
}

/** Thrown for a file or user staging does not have, or a user id or email matching several users. */
export class ExplainInputError extends Error {}

async function classSubject(
  repo: PolicyGroupsRepository,
  source: string,
  nativeId: string | undefined,
  policy: string,
  notes: string[],
): Promise<PolicySubject | undefined> {
  if (nativeId === undefined) return undefined;
  const meta = recordedClass({ metadata: await repo.group(source, nativeId) });
  if (!meta) return undefined;
  if (meta.policy !== policy)
    notes.push(`group ${source}:${nativeId} was compiled under another policy: sync again; the answer below applies this policy to the staged attributes`);
  return meta.subject;
}

/**
 * Answers "may this user read this document, and by which rule?" from what staging holds: the
 * document's and the user's policy classes (the attributes the policy reads, staged on their
 * synthesized groups) evaluated rule by rule under `policy`.
 */
export async function explainStagedAccess(db: Db, policy: Policy, userRef: string, fileId: string): Promise<StagedExplanation> {
  const repo = new PolicyGroupsRepository(db);
  const file = await repo.file(fileId);
  if (!file) throw new ExplainInputError(`no staged file has the id '${fileId}' (ids are <source>:<native id>, as /v1/files lists them)`);
  const users = await repo.users(file.source, userRef);
  if (users.length === 0) throw new ExplainInputError(`source '${file.source}' has no staged user with the id or email '${userRef}'`);
  if (users.length > 1)
    throw new ExplainInputError(`'${userRef}' matches several users of '${file.source}': ${users.map((u) => u.id).join(', ')}; name one by id`);
  const user = users[0] as (typeof users)[number];
  const notes: string[] = [];
  const fingerprint = policyFingerprint(policy);
  const prefix = `${file.source}:`;
  const docGroup = file.access.find((a) => a.type === 'GROUP' && a.id.startsWith(prefix + DOCUMENT_CLASS_PREFIX))?.id.slice(prefix.length);
  const doc = await classSubject(repo, file.source, docGroup, fingerprint, notes);
  const userGroup = (await repo.groupsOfUser(file.source, user.id)).find((g) => g.startsWith(USER_CLASS_PREFIX));
  const subject = await classSubject(repo, file.source, userGroup, fingerprint, notes);
  if (!doc) notes.push('the file names no policy group: it was not synced with a policy (or not since the policy was set)');
  if (user.state !== 'Active') notes.push('the user is inactive: inactive users get no access through the policy');
  else if (!subject) notes.push('the user is in no policy group: it was not synced with a policy (or not since the policy was set)');
  const explained = explainAccess(policy, subject ?? {}, doc ?? {});
  const explicit = file.access.filter((a) => (a.type === 'USER' && a.id === user.id) || (a.type === 'GROUP' && a.id === '*')).map((a) => `${a.type} ${a.id}`);
  const otherGroups = file.access.filter((a) => a.type === 'GROUP' && a.id !== '*' && !a.id.startsWith(`${prefix}policy-`)).map((a) => a.id);
  return {
    file: { id: file.id, source: file.source, status: file.status },
    user,
    granted: explained.granted && user.state === 'Active' && subject !== undefined && doc !== undefined,
    rules: explained.rules,
    notes,
    explicit,
    otherGroups,
  };
}
