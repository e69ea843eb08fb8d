import { Readable } from 'node:stream';
import { z } from 'zod';
import type { AccessEntry, AdapterContext, FileRecord, GroupRecord, IncrementalAdapter, Principal, SyncEvent, UserRecord } from '../../src/adapters/adapter';

/**
 * A source held in memory that tests change between runs: files, users and groups, plus a change
 * log for incremental runs (the checkpoint is a position in that log). Binary files count how
 * often their bytes were opened.
 */
export class ScriptedSource implements IncrementalAdapter<{ position: number }> {
  readonly checkpointSchema = z.object({ position: z.number().int().min(0) });
  files = new Map<string, FileRecord>();
  users = new Map<string, UserRecord>();
  groups = new Map<string, GroupRecord>();
  log: SyncEvent[] = [];
  /** Files that cannot be read now: full runs yield these failures in their place (see `fail`). */
  failing = new Map<string, Extract<SyncEvent, { type: 'failure' }>>();
  /** Groups whose members cannot be read now: full runs yield these failures in their place (see `failGroup`). */
  failingGroups = new Map<string, Extract<SyncEvent, { type: 'failure' }>>();
  opens = 0;
  /** Yield a checkpoint every this many items in full runs (0: only at the end). */
  checkpointEvery = 0;
  /** Thrown by `changes` to simulate an expired sync token: before its first event, or after `expireAfter` events. */
  expire?: Error;
  expireAfter = 0;
  /** Called before each yielded event (tests use it to fail or abort mid-run). */
  beforeYield?: (index: number) => void;

  constructor(readonly name = 'scripted') {}

  html(nativeId: string, html: string, access: AccessEntry[] = [{ type: 'EVERYONE' }], extra: Partial<FileRecord> = {}): this {
    return this.putFile({
      nativeId,
      name: `Doc ${nativeId}`,
      externalUrl: `https://src.example/${nativeId}`,
      mimeType: 'text/html',
      content: { kind: 'html', html },
      access,
      ...extra,
    });
  }

  binary(nativeId: string, bytes: Buffer, version: string | undefined, access: AccessEntry[] = [{ type: 'EVERYONE' }]): this {
    return this.putFile({
      nativeId,
      name: `File ${nativeId}`,
      externalUrl: `https://src.example/${nativeId}`,
      mimeType: 'application/pdf',
      content: {
        kind: 'binary',
        open: async () => {
          this.opens++;
          return Readable.from([bytes]);
        },
        ...(version === undefined ? {} : { version }),
      },
      access,
    });
  }

  putFile(file: FileRecord): this {
    this.files.set(file.nativeId, file);
    this.failing.delete(file.nativeId);
    this.log.push({ type: 'file', file });
    return this;
  }

  putUser(user: UserRecord): this {
    this.users.set(user.nativeId, user);
    this.log.push({ type: 'user', user });
    return this;
  }

  putGroup(group: GroupRecord): this {
    this.groups.set(group.nativeId, group);
    this.failingGroups.delete(group.nativeId);
    this.log.push({ type: 'group', group });
    return this;
  }

  /**
   * The file cannot be read (its content, or with `accessAtMost` its new access rule) until it is
   * put again: a failure in the change log and in every full run.
   */
  fail(nativeId: string, error: Error, accessAtMost?: readonly AccessEntry[]): this {
    const failure = { type: 'failure' as const, kind: 'file' as const, nativeId, error, ...(accessAtMost ? { accessAtMost } : {}) };
    this.failing.set(nativeId, failure);
    this.log.push(failure);
    return this;
  }

  /**
   * The group's members cannot be read (with `membersAtMost`: read whole, but not all resolvable)
   * until it is put again: a failure in the change log and in every full run. A group the source
   * does not have yet is listed by full runs as this failure alone.
   */
  failGroup(nativeId: string, error: Error, membersAtMost?: readonly Principal[]): this {
    const failure = { type: 'failure' as const, kind: 'group' as const, nativeId, error, ...(membersAtMost ? { membersAtMost } : {}) };
    this.failingGroups.set(nativeId, failure);
    this.log.push(failure);
    return this;
  }

  remove(kind: 'file' | 'user' | 'group', nativeId: string): this {
    (kind === 'file' ? this.files : kind === 'user' ? this.users : this.groups).delete(nativeId);
    if (kind === 'group') this.failingGroups.delete(nativeId);
    this.log.push({ type: 'delete', kind, nativeId });
    return this;
  }

  async *full(ctx: AdapterContext, resume?: unknown): AsyncIterable<SyncEvent> {
    const all: SyncEvent[] = [
      ...[...this.users.values()].map((user) => ({ type: 'user' as const, user })),
      ...[...this.groups.values()].map((group): SyncEvent => this.failingGroups.get(group.nativeId) ?? { type: 'group', group }),
      ...[...this.failingGroups.values()].filter((f) => !this.groups.has(f.nativeId ?? '')),
      ...[...this.files.values()].map((file): SyncEvent => this.failing.get(file.nativeId) ?? { type: 'file', file }),
    ];
    const start = (resume as { index?: number } | undefined)?.index ?? 0;
    for (let i = start; i < all.length; i++) {
      if (ctx.signal.aborted) return;
      this.beforeYield?.(i);
      yield all[i] as SyncEvent;
      if (this.checkpointEvery && (i + 1) % this.checkpointEvery === 0) yield { type: 'checkpoint', checkpoint: { position: this.log.length, index: i + 1 } };
    }
    yield { type: 'checkpoint', checkpoint: { position: this.log.length } };
  }

  async *changes(_ctx: AdapterContext, since: { position: number }): AsyncIterable<SyncEvent> {
    let given = 0;
    for (const event of this.log.slice(since.position)) {
      if (this.expire && given === this.expireAfter) throw this.expire;
      yield event;
      given += 1;
    }
    if (this.expire) throw this.expire;
    yield { type: 'checkpoint', checkpoint: { position: this.log.length } };
  }
}
