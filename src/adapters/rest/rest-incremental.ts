import { z } from 'zod';
import type { AdapterContext, IncrementalAdapter, SyncEvent } from '../adapter';
import { FullRunRequired } from '../source-error';
import { DEFAULT_CONCURRENCY, RestAdapter } from './rest-adapter';
import type { AccessDeps } from './rest-access';
import { feedEvents, feedStart } from './rest-change-feed';
import { groupEvents, readContainers, userEvents } from './rest-directory';
import { documentEvents, type DocumentTracker } from './rest-document-walk';
import type { IncrementalSync } from './rest-manifest';
import { nextCursor, updatedSinceEvents, type CursorMark } from './rest-updated-since';

const directory = { users: z.array(z.string()), groups: z.array(z.string()) };

/** `listed_version`: each document's version as listed and its children; the users and groups yielded. */
const listedCheckpointSchema = z.object({
  documents: z.record(z.string(), z.object({ version: z.string(), children: z.array(z.string()) })),
  ...directory,
});
/** `updated_since`: the highest cursor read (ms since the epoch; null before any record), whatever the number of documents. */
const updatedSinceCheckpointSchema = z.object({ mode: z.literal('updated_since'), cursor: z.number().nullable(), ...directory });
/** `change_feed`: the feed's token. */
const changeFeedCheckpointSchema = z.object({ mode: z.literal('change_feed'), token: z.string(), ...directory });

export const restCheckpointSchema = z.union([updatedSinceCheckpointSchema, changeFeedCheckpointSchema, listedCheckpointSchema]);
export type RestCheckpoint = z.infer<typeof restCheckpointSchema>;
type Directory = { users: string[]; groups: string[] };

function modeOf(checkpoint: RestCheckpoint): IncrementalSync['type'] {
  return 'mode' in checkpoint ? checkpoint.mode : 'listed_version';
}

/**
 * A manifest with `streams.documents.incremental_sync`. Every run lists users and groups whole
 * (fail closed; those no longer listed are deleted). Documents by the manifest's type:
 * `listed_version` lists every document and reads again those whose listed version changed;
 * `updated_since` lists those updated since the last cursor minus the look-back window (tombstones
 * are deletes); `change_feed` reads the feed from its stored token. After an incremental run of
 * the last two the engine reconciles access with `liveFiles` (the full listing, no content) and `settle`: a lost
 * event or a record the cursor missed delays a change of content, never a change of access or a
 * deletion (ReconcilingRestAdapter; `listed_version` reads every listing already and is
 * reconciled only when its listed records do not hold every access list: create-rest-adapter.ts).
 * Deletions the feed or tombstones miss are otherwise swept by scheduled full runs.
 */
export class IncrementalRestAdapter extends RestAdapter implements IncrementalAdapter<RestCheckpoint> {
  readonly checkpointSchema = restCheckpointSchema;

  override async *full(ctx: AdapterContext): AsyncGenerator<SyncEvent> {
    yield* this.withRun(ctx, (deps) => this.walk(deps, undefined));
  }

  async *changes(ctx: AdapterContext, since: RestCheckpoint): AsyncGenerator<SyncEvent> {
    const type = this.sync.type;
    if (modeOf(since) !== type) throw new FullRunRequired(`the checkpoint is of incremental_sync ${modeOf(since)}, the manifest says ${type}`);
    const written = new Set<string>();
    this.written = written;
    for await (const event of this.withRun(ctx, (deps) => this.walk(deps, since))) {
      if (event.type === 'file') written.add(event.file.nativeId);
      yield event;
    }
  }

  protected get sync(): IncrementalSync {
    return this.options.loaded.manifest.streams.documents.incremental_sync as IncrementalSync;
  }

  private async *walk(deps: AccessDeps, since: RestCheckpoint | undefined): AsyncGenerator<SyncEvent> {
    const { manifest } = this.options.loaded;
    const concurrency = manifest.concurrency ?? DEFAULT_CONCURRENCY;
    const { users, groups, containers, documents } = manifest.streams;
    const seen: Directory = { users: [], groups: [] };
    for (const [kind, events] of [
      ['users', users ? userEvents(users, deps) : undefined],
      ['groups', groups ? groupEvents(groups, deps, concurrency) : undefined],
    ] as const) {
      if (!events) continue;
      for await (const event of events) {
        if (event.type === 'user') seen.users.push(event.user.nativeId);
        if (event.type === 'group') seen.groups.push(event.group.nativeId);
        if (event.type === 'failure' && event.nativeId) seen[kind].push(event.nativeId);
        yield event;
      }
    }
    if (since) yield* directoryDeletions(since, seen);
    const withContainers = containers ? { ...deps, containers: await readContainers(containers, deps, concurrency) } : deps;
    const sync = this.sync;
    if (sync.type === 'updated_since') {
      const mark: CursorMark = { highest: undefined, lowestFailed: undefined };
      const previous = since && 'mode' in since && since.mode === 'updated_since' ? since.cursor : undefined;
      yield* updatedSinceEvents(documents, sync, withContainers, concurrency, previous, mark);
      yield { type: 'checkpoint', checkpoint: { mode: 'updated_since', cursor: nextCursor(previous, mark), ...seen } satisfies RestCheckpoint };
    } else if (sync.type === 'change_feed') {
      const at = (token: string): SyncEvent => ({ type: 'checkpoint', checkpoint: { mode: 'change_feed', token, ...seen } satisfies RestCheckpoint });
      let token = since && 'mode' in since && since.mode === 'change_feed' ? since.token : undefined;
      if (token === undefined) {
        token = await feedStart(sync, withContainers);
        yield* documentEvents(documents, withContainers, concurrency);
      } else {
        for await (const event of feedEvents(documents, sync, withContainers, token, at, concurrency)) {
          if (event.type === 'checkpoint') token = (event.checkpoint as { token: string }).token;
          yield event;
        }
      }
      yield at(token);
    } else {
      const tracker: DocumentTracker = { previous: since && !('mode' in since) ? since.documents : undefined, next: {} };
      yield* documentEvents(documents, withContainers, concurrency, tracker);
      if (since && !('mode' in since)) yield* documentDeletions(since, tracker.next);
      yield { type: 'checkpoint', checkpoint: { documents: tracker.next, ...seen } satisfies RestCheckpoint };
    }
  }
}

/** Delete events for documents the last checkpoint had and this run's complete listing did not show, and for children gone from a re-read parent. */
function* documentDeletions(since: z.infer<typeof listedCheckpointSchema>, now: DocumentTracker['next']): Generator<SyncEvent> {
  for (const [id, before] of Object.entries(since.documents)) {
    const after = now[id];
    if (!after) yield { type: 'delete', kind: 'file', nativeId: id };
    const kept = new Set(after?.children ?? []);
    for (const child of before.children) if (!kept.has(child)) yield { type: 'delete', kind: 'file', nativeId: child };
  }
}

/** Delete events for the users and groups the last checkpoint had and this run's complete listings did not show. */
function* directoryDeletions(since: Directory, seen: Directory): Generator<SyncEvent> {
  const users = new Set(seen.users);
  for (const id of since.users) if (!users.has(id)) yield { type: 'delete', kind: 'user', nativeId: id };
  const groups = new Set(seen.groups);
  for (const id of since.groups) if (!groups.has(id)) yield { type: 'delete', kind: 'group', nativeId: id };
}
