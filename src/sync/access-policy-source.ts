import {
  isIncremental,
  reconcilesAccess,
  supportsPermissionSync,
  type AccessReconcilingAdapter,
  type Adapter,
  type AdapterContext,
  type IncrementalAdapter,
  type LiveFile,
  type PermissionSyncAdapter,
  type SettleEvent,
  type SettleRequest,
  type SyncEvent,
} from '../adapters/adapter';
import { FullRunRequired } from '../adapters/source-error';
import { DOCUMENT_CLASS_PREFIX, PolicyCompilation, USER_CLASS_PREFIX } from '../policies/policy-compilation';
import { restoreCompilation } from '../policies/restore-compilation';
import type { Policy } from '../policies/policy-types';
import type { Db } from '../staging/create-db';
import { PolicyGroupsRepository } from '../staging/policy-groups-repository';
import { globalId } from '../wire/global-id';

/**
 * The compilation earlier runs staged (see restoreCompilation). Refuses (FullRunRequired, so
 * the engine runs full instead) when nothing was compiled yet or under another policy.
 */
async function seedFromStaging(policy: Policy, db: Db, source: string): Promise<Restored> {
  const restored = restoreCompilation(policy, await new PolicyGroupsRepository(db).load(source, POLICY_PREFIXES));
  if (!restored) throw new FullRunRequired(policyChanged(source));
  return restored;
}

type Restored = NonNullable<ReturnType<typeof restoreCompilation>>;

const policyChanged = (source: string): string => `the access policy of '${source}' changed since its groups were compiled (or none were): a full run recompiles them`;

/**
 * An adapter's events with the policy applied: users join their classes, each file's access list
 * gets its document-class group, and once the adapter is done the synthesized groups follow (and,
 * in incremental runs, deletes of user classes that emptied). Checkpoints are held back and the
 * last one yielded after the groups: a run killed before the groups are staged resumes before the
 * changes that moved users between classes, so group members never lag behind a stored checkpoint.
 */
async function* compileEvents(events: AsyncIterable<SyncEvent>, compilation: PolicyCompilation, staleUserGroups: ReadonlySet<string> = new Set()): AsyncIterable<SyncEvent> {
  let checkpoint: SyncEvent | undefined;
  for await (const event of events) {
    if (event.type === 'checkpoint') checkpoint = event;
    else if (event.type === 'user') {
      compilation.setUser(event.user);
      yield event;
    } else if (event.type === 'delete' && event.kind === 'user') {
      compilation.removeUser(event.nativeId);
      yield event;
    } else if (event.type === 'file') {
      yield { type: 'file', file: { ...event.file, access: compilation.documentAccess(event.file) } };
    } else if ((event.type === 'group' || (event.type === 'delete' && event.kind === 'group')) && isReserved(event.type === 'group' ? event.group.nativeId : event.nativeId)) {
      const nativeId = event.type === 'group' ? event.group.nativeId : event.nativeId;
      yield { type: 'failure', kind: 'group', nativeId, error: new Error(`group id '${nativeId}' starts with ${USER_CLASS_PREFIX} or ${DOCUMENT_CLASS_PREFIX}, which the access policy's groups use: the source's group is skipped`) };
    } else yield event;
  }
  const groups = compilation.groups();
  const present = new Set(groups.map((g) => g.nativeId));
  for (const group of groups) yield { type: 'group', group };
  for (const id of staleUserGroups) if (!present.has(id)) yield { type: 'delete', kind: 'group', nativeId: id };
  if (checkpoint) yield checkpoint;
}

const POLICY_PREFIXES = [USER_CLASS_PREFIX, DOCUMENT_CLASS_PREFIX] as const;

/** Native group ids the policy's synthesized groups use: an adapter's own group may not take one. */
function isReserved(nativeId: string): boolean {
  return nativeId.startsWith(USER_CLASS_PREFIX) || nativeId.startsWith(DOCUMENT_CLASS_PREFIX);
}

/**
 * A listed file's access list with its policy group: the document class of the attributes the
 * listing read, or, when the listing read none, the group staged for the file.
 */
function withPolicyGroup(file: LiveFile, compilation: PolicyCompilation, staged: ReadonlyMap<string, string>, source: string): LiveFile {
  const group = file.attributes !== undefined ? compilation.addDocumentClass(file.attributes) : staged.get(globalId(source, file.nativeId));
  return group ? { ...file, access: [...file.access, { type: 'GROUP', nativeId: group }] } : file;
}

/**
 * Access reconciliation's listing, each file with its policy group (withPolicyGroup). A file whose
 * listed attributes fall in a class staging has no group for is left out: `settle` is then asked
 * about it, reads it and stages the class's group with it, so no access list names a group that
 * is not there (not even when a run that rewrote the list stopped before staging the group).
 */
async function* liveWithPolicy(files: AsyncIterable<LiveFile>, compilation: Promise<PolicyCompilation>, groups: Promise<Map<string, string>>, source: string): AsyncIterable<LiveFile> {
  const [byFile, compiled] = [await groups, await compilation];
  for await (const file of files) {
    if (file.attributes === undefined || compiled.hasDocumentClass(file.attributes)) yield withPolicyGroup(file, compiled, byFile, source);
  }
}

/**
 * Wraps an adapter so a sync compiles `policy` into its groups and access lists (docs/access-policies.md).
 * The adapter stays unaware of policies (DESIGN.md §2); the wrapper keeps its name and abilities.
 *
 * Incremental runs need every user's class, not just those that changed: they read them back from
 * the user-class groups staged by earlier runs (members and class), so no directory is re-read. A
 * policy other than the one staged groups were compiled under makes `changes` throw
 * `FullRunRequired` before its first event, so the engine runs full from the start (all files
 * re-yielded: unchanged content is not downloaded again, access lists are rewritten). A resumed
 * full run starts over, since users yielded before the interruption are needed.
 */
export function withAccessPolicy(adapter: Adapter, policy: Policy, deps: { db: Db }): Adapter {
  const source = adapter.name;
  const wrapped: Adapter & Partial<AccessReconcilingAdapter & PermissionSyncAdapter> = {
    name: source,
    full: (ctx: AdapterContext) => compileEvents(adapter.full(ctx), new PolicyCompilation(policy)),
  };
  if (supportsPermissionSync(adapter)) {
    wrapped.permissions = (ctx: AdapterContext) => compileEvents(adapter.permissions(ctx), new PolicyCompilation(policy));
  }
  /** The compilation of the latest `changes()`: `settle`, called right after it, goes on with it. */
  let current: PolicyCompilation | undefined;
  if (isIncremental(adapter)) {
    const incremental = wrapped as IncrementalAdapter;
    Object.assign(incremental, { checkpointSchema: adapter.checkpointSchema });
    incremental.changes = async function* changes(ctx: AdapterContext, since: unknown): AsyncIterable<SyncEvent> {
      const { compilation, userGroups } = await seedFromStaging(policy, deps.db, source);
      current = compilation;
      yield* compileEvents(adapter.changes(ctx, since), compilation, userGroups);
    };
  }
  if (reconcilesAccess(adapter)) {
    const policyGroups = () => new PolicyGroupsRepository(deps.db).fileGroups(source, DOCUMENT_CLASS_PREFIX);
    /** The run's compilation, shared by the listing and `settle`: a class the listing found new is staged by `settle`. */
    const compilationNow = async (): Promise<PolicyCompilation> => (current ??= (await seedFromStaging(policy, deps.db, source)).compilation);
    wrapped.liveFiles = (ctx: AdapterContext) => liveWithPolicy(adapter.liveFiles(ctx), compilationNow(), policyGroups(), source);
    wrapped.settle = async function* settle(ctx: AdapterContext, request: SettleRequest): AsyncIterable<SettleEvent> {
      yield* settleWithPolicy(adapter.settle(ctx, request), await compilationNow(), policyGroups(), source);
    };
  }
  return wrapped;
}

/**
 * `settle`'s events: files get the policy's access list; `live` ones their policy group
 * (withPolicyGroup). The groups follow again, for a document class only a settled file brought.
 */
async function* settleWithPolicy(events: AsyncIterable<SettleEvent>, compilation: PolicyCompilation, groups: Promise<Map<string, string>>, source: string): AsyncIterable<SettleEvent> {
  const byFile = await groups;
  for await (const event of events) {
    if (event.type === 'file') yield { type: 'file', file: { ...event.file, access: compilation.documentAccess(event.file) } };
    else if (event.type === 'live') yield { type: 'live', file: withPolicyGroup(event.file, compilation, byFile, source) };
    else if (event.type === 'user') {
      compilation.setUser(event.user);
      yield event;
    } else yield event;
  }
  for (const group of compilation.groups()) yield { type: 'group', group };
}
