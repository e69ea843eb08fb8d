import { z } from 'zod';
import type { AdapterContext, SyncEvent } from '../adapter';
import { DEFAULT_CONCURRENCY, RestAdapter } from './rest-adapter';
import type { AccessDeps } from './rest-access';
import { groupEvents, readContainers, userEvents } from './rest-directory';
import { documentEvents, type DocumentTracker } from './rest-document-walk';

/** What an incremental run compares with: each document's version as listed and its children; the users and groups yielded. */
export const restCheckpointSchema = z.object({
  documents: z.record(z.string(), z.object({ version: z.string(), children: z.array(z.string()) })),
  users: z.array(z.string()),
  groups: z.array(z.string()),
});
export type RestCheckpoint = z.infer<typeof restCheckpointSchema>;

/**
 * A manifest with `streams.documents.incremental_sync`: a full run as the plain adapter's, ending
 * with a checkpoint; an incremental run lists users, groups and documents again (every listing
 * to its end, fail closed as in a full run) but reads a document's access, body and children only
 * when its listed version changed; documents no longer listed, and children gone from a re-read
 * parent, are deleted; users and groups no longer listed are deleted.
 */
export class IncrementalRestAdapter extends RestAdapter {
  readonly checkpointSchema = restCheckpointSchema;

  override async *full(ctx: AdapterContext): AsyncGenerator<SyncEvent> {
    yield* this.withRun(ctx, (deps) => this.walk(deps, undefined));
  }

  async *changes(ctx: AdapterContext, since: RestCheckpoint): AsyncGenerator<SyncEvent> {
    yield* this.withRun(ctx, (deps) => this.walk(deps, since));
  }

  private async *walk(deps: AccessDeps, since: RestCheckpoint | undefined): AsyncGenerator<SyncEvent> {
    const { manifest } = this.options.loaded;
    const concurrency = manifest.concurrency ?? DEFAULT_CONCURRENCY;
    const { users, groups, containers, documents } = manifest.streams;
    const seen = { users: [] as string[], groups: [] as string[] };
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
    const withContainers = containers ? { ...deps, containers: await readContainers(containers, deps, concurrency) } : deps;
    const tracker: DocumentTracker = { previous: since?.documents, next: {} };
    yield* documentEvents(documents, withContainers, concurrency, tracker);
    if (since) yield* deletions(since, tracker.next, seen);
    yield { type: 'checkpoint', checkpoint: { documents: tracker.next, users: seen.users, groups: seen.groups } satisfies RestCheckpoint };
  }
}

/** Delete events for what the last checkpoint had and this run's complete listings did not show. */
function* deletions(since: RestCheckpoint, now: RestCheckpoint['documents'], seen: { users: string[]; groups: string[] }): Generator<SyncEvent> {
  for (const [id, before] of Object.entries(since.documents)) {
    const after = now[id];
    if (!after) yield { type: 'delete', kind: 'file', nativeId: id };
    const kept = new Set(after?.children ?? []);
    for (const child of before.children) if (!kept.has(child)) yield { type: 'delete', kind: 'file', nativeId: child };
  }
  const users = new Set(seen.users);
  for (const id of since.users) if (!users.has(id)) yield { type: 'delete', kind: 'user', nativeId: id };
  const groups = new Set(seen.groups);
  for (const id of since.groups) if (!groups.has(id)) yield { type: 'delete', kind: 'group', nativeId: id };
}
