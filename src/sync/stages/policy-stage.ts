import type { LiveFile, ResolvedLiveFile, SettleEvent, SyncEvent } from '../../adapters/adapter';
import { FullRunRequired } from '../../adapters/source-error';
import { AttributeCensus } from '../../policies/attribute-census';
import { DOCUMENT_CLASS_PREFIX, PolicyCompilation, USER_CLASS_PREFIX } from '../../policies/policy-compilation';
import { restoreCompilation, type CompiledGroup } from '../../policies/restore-compilation';
import type { Policy } from '../../policies/policy-types';
import { globalId } from '../../wire/global-id';

/** Native id prefixes of the groups a policy synthesizes: what an incremental run reads back of staging, and what a source's own group may not take. */
export const POLICY_GROUP_PREFIXES = [USER_CLASS_PREFIX, DOCUMENT_CLASS_PREFIX] as const;

/** Staged file id → the document-class group (native id) its access list names: the grant kept for a file a listing reads no attributes of. */
export type StagedGrants = ReadonlyMap<string, string>;

/**
 * The access policy as a stage of a run (docs/access-policies.md); adapters know nothing of
 * policies (DESIGN.md §2). Its inputs are the run's users and documents, its outputs the compiled
 * groups and each file's extra grant: the document-class group its access list gets.
 *
 * The engine opens one per run and drives it: empty for a full run (`fresh`), holding what earlier
 * runs compiled for an incremental one (`restore`, from the groups the engine read back from
 * staging); access reconciliation after the changes goes on with the same stage, so a class the
 * listing or `settle` finds new joins the run's groups. The stage reads and writes nothing itself.
 */
export class PolicyStage {
  private constructor(
    private readonly source: string,
    private readonly compilation: PolicyCompilation,
    /** User-class groups staged before the run: those that empty are deleted. */
    private readonly stagedUserGroups: ReadonlySet<string>,
    /** A full run's: the attribute names its users and documents carry. */
    private readonly census?: AttributeCensus,
  ) {}

  /** A full run's stage: every user and file comes through it. */
  static fresh(policy: Policy, source: string): PolicyStage {
    return new PolicyStage(source, new PolicyCompilation(policy), new Set(), new AttributeCensus());
  }

  /** After a full run's events: the attributes the policy reads that none of its users or documents has. */
  absentAttributes(): string[] {
    return this.census?.absent(this.compilation.policy) ?? [];
  }

  /**
   * An incremental run's stage, holding every user's class and every document class earlier runs
   * staged (`staged`: the source's groups with POLICY_GROUP_PREFIXES), so no directory is re-read.
   * Throws `FullRunRequired` when nothing was compiled yet or under another policy.
   */
  static restore(policy: Policy, source: string, staged: readonly CompiledGroup[]): PolicyStage {
    const restored = restoreCompilation(policy, staged);
    if (!restored) {
      const why = `the access policy of '${source}' changed since its groups were compiled (or none were)`;
      throw new FullRunRequired(`${why}: a full run recompiles them`);
    }
    return new PolicyStage(source, restored.compilation, restored.userGroups);
  }

  /**
   * A run's events with the policy applied: users join their classes, each file's access list gets
   * its document-class group, and once the events are done the synthesized groups follow (and,
   * after a restore, deletes of user classes that emptied). Checkpoints are held back and the last
   * one follows the groups: a run killed before the groups are staged resumes before the changes
   * that moved users between classes, so group members never lag behind a stored checkpoint.
   */
  async *apply(events: AsyncIterable<SyncEvent>): AsyncIterable<SyncEvent> {
    const { compilation } = this;
    let checkpoint: SyncEvent | undefined;
    for await (const event of events) {
      if (event.type === 'checkpoint') checkpoint = event;
      else if (event.type === 'user') {
        this.census?.note('user', event.user.attributes);
        compilation.setUser(event.user);
        yield event;
      } else if (event.type === 'delete' && event.kind === 'user') {
        compilation.removeUser(event.nativeId);
        yield event;
      } else if (event.type === 'file') {
        this.census?.note('doc', event.file.attributes);
        yield { type: 'file', file: { ...event.file, access: compilation.documentAccess(event.file) } };
      } else {
        const reserved = reservedGroupId(event);
        yield reserved === undefined ? event : { type: 'failure', kind: 'group', nativeId: reserved, error: new Error(reservedMessage(reserved)) };
      }
    }
    const groups = compilation.groups();
    const present = new Set(groups.map((g) => g.nativeId));
    for (const group of groups) yield { type: 'group', group };
    for (const id of this.stagedUserGroups) if (!present.has(id)) yield { type: 'delete', kind: 'group', nativeId: id };
    if (checkpoint) yield checkpoint;
  }

  /**
   * Access reconciliation's listing, each file with its policy group (`withGrant`). A file whose
   * listed attributes fall in a class the stage does not hold is left out: `settle` is then asked
   * about it, reads it and stages the class's group with it, so no access list names a group that
   * is not there (not even when a run that rewrote the list stopped before staging the group). A
   * file whose access could not be resolved whole is yielded as it is, whatever its class: its
   * staged list is narrowed to what the source still grants, which drops the policy's grant too.
   * So is a file whose access could not be read: its staged list, grant included, is kept.
   */
  async *listing(files: AsyncIterable<LiveFile>, staged: StagedGrants): AsyncIterable<LiveFile> {
    for await (const file of files) {
      if (failed(file) || file.attributes === undefined || this.compilation.hasDocumentClass(file.attributes)) yield this.withGrant(file, staged);
    }
  }

  /**
   * `settle`'s answers: files get the policy's access list, `live` ones their policy group
   * (`withGrant`), users join their classes. The groups follow again, for a document class only a
   * settled file brought.
   */
  async *settled(events: AsyncIterable<SettleEvent>, staged: StagedGrants): AsyncIterable<SettleEvent> {
    const { compilation } = this;
    for await (const event of events) {
      if (event.type === 'file') yield { type: 'file', file: { ...event.file, access: compilation.documentAccess(event.file) } };
      else if (event.type === 'live') yield { type: 'live', file: this.withGrant(event.file, staged) };
      else {
        if (event.type === 'user') compilation.setUser(event.user);
        yield event;
      }
    }
    for (const group of compilation.groups()) yield { type: 'group', group };
  }

  /**
   * A listed file's access list with its policy group: the document class of the attributes the
   * listing read, or, when the listing read none, the group staged for the file. None for a file
   * whose access could not be resolved whole (narrowed to what the source grants: closed), nor
   * for one whose access could not be read (kept as staged, its grant with it).
   */
  private withGrant(file: LiveFile, staged: StagedGrants): LiveFile {
    if (failed(file)) return file;
    const group = file.attributes !== undefined ? this.compilation.addDocumentClass(file.attributes) : staged.get(globalId(this.source, file.nativeId));
    return group ? { ...file, access: [...file.access, { type: 'GROUP', nativeId: group }] } : file;
  }
}

/** A listed file whose access could not be resolved whole or read: it passes through the policy untouched. */
function failed(file: LiveFile): file is Exclude<LiveFile, ResolvedLiveFile> {
  return file.unresolved !== undefined || file.unreadable !== undefined;
}

/**
 * The id of a source's own group (or group delete, or group failure: its `membersAtMost` would
 * narrow a compiled group) that takes a prefix the policy's groups use, which the stage refuses;
 * else undefined.
 */
function reservedGroupId(event: SyncEvent): string | undefined {
  const nativeId =
    event.type === 'group'
      ? event.group.nativeId
      : (event.type === 'delete' || event.type === 'failure') && event.kind === 'group'
        ? event.nativeId
        : undefined;
  return nativeId !== undefined && POLICY_GROUP_PREFIXES.some((prefix) => nativeId.startsWith(prefix)) ? nativeId : undefined;
}

function reservedMessage(nativeId: string): string {
  const prefixes = `${USER_CLASS_PREFIX} or ${DOCUMENT_CLASS_PREFIX}`;
  return `group id '${nativeId}' starts with ${prefixes}, which the access policy's groups use: the source's group is skipped`;
}
