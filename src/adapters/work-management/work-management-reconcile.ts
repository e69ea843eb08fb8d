import type { AccessEntry, LiveFile, SettleEvent, SettleRequest } from '../adapter';
import { SourceError, SourceNotFoundError, SourcePermissionError } from '../source-error';
import type { WorkManagementApi } from './work-management-api';
import type { WorkManagementCheckpoint } from './work-management-checkpoint';
import { optional } from './work-management-directory';
import { compareGids, fileId, groupId, isSyncedAttachment, taskAccess } from './work-management-mapping';
import type { Ref, WmAttachment, WmTaskAccess } from './work-management-records';
import { TaskCrawler, projectAttachmentEvents, readTasks, type TaskContext } from './work-management-tasks';

/** `opt_fields` of the live listing: exactly what a task's access list depends on. */
export const LIVE_TASK_FIELDS = 'projects,assignee,followers';
/** A task settled alone: its access, and its clock (changed since the last run: read whole). */
export const SETTLE_TASK_FIELDS = 'projects,assignee,followers,modified_at';
const LIVE_ATTACHMENT_FIELDS = 'name,host';

/**
 * What reconciliation continues from: the incremental run that has just ended (its directory,
 * its API client and counters, the attachments its checkpoint knows).
 */
export interface ReconcileState {
  task: TaskContext;
  /** Task or project gid → gids of its synced attachments; `settle` keeps it up to date. */
  attachments: Map<string, string[]>;
  /** The watermark the run started from: a task settled alone that changed since is read whole. */
  watermark: string;
  /** Tasks read whole in this run (no second read). */
  read: Set<string>;
  /** The run's last checkpoint; `settle` yields it again with the attachments it learnt of. */
  checkpoint: WorkManagementCheckpoint;
}

/** What the live listing needs: the directory and API client of the run, and the attachments each task is known to have. */
export type LiveListing = Pick<ReconcileState, 'task' | 'attachments'>;

/**
 * The live files, as cheaply as the API allows: each project's tasks with only the fields access
 * depends on (`projects,assignee,followers`; 100 to a page, ten listings to a batch), each task's
 * synced attachments as the checkpoint knows them (adding or trashing one moves the task's
 * `modified_at`, so the run's `modified_since` net has read those again), and each project's own
 * attachments. Tasks in no project are not listed: the engine asks `settle` about them. No file
 * is ever listed as unresolved (`UnresolvedLiveFile`): a task's access is its projects' groups (ids
 * made from the project gids) and its assignee and followers among the active people, anyone else
 * left out rather than refused, so there is no rule it cannot resolve whole; a failed request fails
 * the listing.
 */
export async function* liveFiles(state: LiveListing): AsyncGenerator<LiveFile> {
  const { api, dir } = state.task;
  const listings = await Promise.all(dir.projects.map((p) => projectListing(api, p.gid)));
  const seen = new Set<string>();
  for (const [i, listing] of listings.entries()) {
    for (const task of listing.tasks) {
      if (seen.has(task.gid)) continue; // multi-homed: listed by each of its projects
      seen.add(task.gid);
      yield* taskFiles(state, task.gid, taskAccess(task, dir.people));
    }
    const project = dir.projects[i]?.gid as string;
    for (const a of listing.attachments.filter(isSyncedAttachment)) yield { nativeId: fileId.attachment(a.gid), access: projectAccess(project) };
  }
}

/** A project's tasks and own attachments; nothing when it is gone since the directory was read (its tasks are then settled one by one). */
async function projectListing(api: WorkManagementApi, project: string): Promise<{ tasks: WmTaskAccess[]; attachments: WmAttachment[] }> {
  const [tasks, attachments] = await Promise.all([
    optional(api.all<WmTaskAccess>(`/projects/${project}/tasks`, {}, LIVE_TASK_FIELDS), []),
    optional(api.all<WmAttachment>('/attachments', { parent: project }, LIVE_ATTACHMENT_FIELDS), []),
  ]);
  return { tasks, attachments };
}

function* taskFiles(state: LiveListing, task: string, access: AccessEntry[]): Generator<LiveFile> {
  yield { nativeId: fileId.task(task), access };
  for (const a of state.attachments.get(task) ?? []) yield { nativeId: fileId.attachment(a), access };
}

function projectAccess(project: string): AccessEntry[] {
  return [{ type: 'GROUP', nativeId: groupId.project(project) }];
}

/**
 * Answers what the listing could not vouch for. Unlisted tasks (in no project, or no longer in
 * any) are read alone with the access fields: gone (404/403) → deleted with their attachments;
 * changed since the last run → read whole; else `live`. Unlisted attachments are read alone for
 * their parent. Missing tasks, tasks whose access changed (their page names their projects) and
 * the parents of missing attachments are read whole. Then the checkpoint, with the attachments
 * learnt of.
 */
export async function* settle(state: ReconcileState, request: SettleRequest): AsyncGenerator<SettleEvent> {
  const ids = { unlisted: splitIds(request.unlisted), missing: splitIds(request.missing), changed: splitIds(request.accessChanged) };
  const whole = new Set([...ids.missing.tasks, ...ids.changed.tasks]);
  const projects = new Set<string>();
  const known = new Map<string, AccessEntry[]>();
  yield* settleTasks(state, ids.unlisted.tasks, whole, known);
  yield* settleAttachments(state, ids.unlisted.attachments, known);
  await addParents(state, ids.missing.attachments, whole, projects);
  yield* readWhole(state, [...whole], [...projects]);
  state.checkpoint = { ...state.checkpoint, attachments: Object.fromEntries([...state.attachments].sort(([a], [b]) => compareGids(a, b))) };
  yield { type: 'checkpoint', checkpoint: state.checkpoint };
}

type Lookup<T> = { gid: string; record?: T; gone?: true; error?: Error };

/** Reads records one by one (the client batches them): gone on 404/403, an error on other failures. */
async function lookUp<T>(api: WorkManagementApi, path: (gid: string) => string, fields: string, gids: readonly string[]): Promise<Array<Lookup<T>>> {
  return Promise.all(
    gids.map((gid) =>
      api.get<{ data: T }>(path(gid), { opt_fields: fields }).then(
        (r): Lookup<T> => ({ gid, record: r.data }),
        (error: unknown): Lookup<T> => {
          if (error instanceof SourceNotFoundError || error instanceof SourcePermissionError) return { gid, gone: true };
          if (error instanceof SourceError && error.action !== 'abort') return { gid, error };
          throw error;
        },
      ),
    ),
  );
}

async function* settleTasks(
  state: ReconcileState,
  gids: readonly string[],
  whole: Set<string>,
  known: Map<string, AccessEntry[]>,
): AsyncGenerator<SettleEvent> {
  for (const r of await lookUp<WmTaskAccess>(state.task.api, (g) => `/tasks/${g}`, SETTLE_TASK_FIELDS, gids)) {
    if (r.gone) yield* deleteTask(state, r.gid);
    else if (r.error || !r.record) yield failure(fileId.task(r.gid), r.error);
    else {
      const access = taskAccess(r.record, state.task.dir.people);
      known.set(r.gid, access);
      if (changedSince(r.record, state.watermark) && !state.read.has(r.gid)) whole.add(r.gid);
      else yield { type: 'live', file: { nativeId: fileId.task(r.gid), access } };
    }
  }
}

/**
 * Unlisted attachments: gone, or live with their parent's access (a parent read whole afterwards
 * deletes those it no longer has).
 */
async function* settleAttachments(state: ReconcileState, gids: readonly string[], known: Map<string, AccessEntry[]>): AsyncGenerator<SettleEvent> {
  const owners = await lookUp<{ parent?: Ref | null }>(state.task.api, (g) => `/attachments/${g}`, 'parent', gids);
  const taskParents = owners.flatMap((o) => (o.record?.parent?.resource_type === 'task' && !known.has(o.record.parent.gid) ? [o.record.parent.gid] : []));
  for (const r of await lookUp<WmTaskAccess>(state.task.api, (g) => `/tasks/${g}`, SETTLE_TASK_FIELDS, [...new Set(taskParents)])) {
    if (r.record) known.set(r.gid, taskAccess(r.record, state.task.dir.people));
  }
  for (const o of owners) {
    const nativeId = fileId.attachment(o.gid);
    const parent = o.record?.parent;
    if (o.error) yield failure(nativeId, o.error);
    else {
      const access = parent
        ? parent.resource_type === 'task'
          ? known.get(parent.gid)
          : state.task.dir.projects.some((p) => p.gid === parent.gid)
            ? projectAccess(parent.gid)
            : undefined
        : undefined;
      yield access ? { type: 'live', file: { nativeId, access } } : { type: 'delete', kind: 'file', nativeId };
    }
  }
}

/** Missing attachments are read through their parent: a task read whole, or the project's attachments. */
async function addParents(state: ReconcileState, gids: readonly string[], whole: Set<string>, projects: Set<string>): Promise<void> {
  for (const o of await lookUp<{ parent?: Ref | null }>(state.task.api, (g) => `/attachments/${g}`, 'parent', gids)) {
    const parent = o.record?.parent;
    if (parent?.resource_type === 'task') whole.add(parent.gid);
    else if (parent?.resource_type === 'project') projects.add(parent.gid);
  }
}

/** Tasks read whole (comments, attachments, subtasks listed) and projects' own attachments; attachments gone from them are deleted. */
async function* readWhole(state: ReconcileState, gids: readonly string[], projects: readonly string[]): AsyncGenerator<SettleEvent> {
  const read = await readTasks(
    state.task.api,
    gids.filter((g) => !state.read.has(g)),
  );
  const crawler = new TaskCrawler(state.task);
  for (const gid of read.gone) yield* deleteTask(state, gid);
  for (const f of read.failed) yield failure(fileId.task(f.gid), f.error);
  yield* crawler.process(read.tasks, { recurse: false });
  // What could not be read is read again by the next run's changes.
  const failed = [...read.failed.map((f) => f.gid), ...crawler.failed];
  if (failed.length > 0) state.checkpoint = { ...state.checkpoint, failed: [...new Set([...state.checkpoint.failed, ...failed])].sort(compareGids) };
  for (const gid of crawler.vanished) yield* deleteTask(state, gid);
  for (const project of state.task.dir.projects.filter((p) => projects.includes(p.gid))) {
    const { events, attachmentIds } = await projectAttachmentEvents(state.task, project);
    crawler.attachments.set(project.gid, attachmentIds);
    yield* events;
  }
  for (const [parent, now] of crawler.attachments) {
    state.read.add(parent);
    const current = new Set(now);
    for (const id of state.attachments.get(parent) ?? []) if (!current.has(id)) yield { type: 'delete', kind: 'file', nativeId: fileId.attachment(id) };
    if (now.length > 0) state.attachments.set(parent, now);
    else state.attachments.delete(parent);
  }
}

function* deleteTask(state: ReconcileState, gid: string): Generator<SettleEvent> {
  state.read.add(gid);
  yield { type: 'delete', kind: 'file', nativeId: fileId.task(gid) };
  for (const id of state.attachments.get(gid) ?? []) yield { type: 'delete', kind: 'file', nativeId: fileId.attachment(id) };
  state.attachments.delete(gid);
}

function failure(nativeId: string, error: Error | undefined): SettleEvent {
  return { type: 'failure', kind: 'file', nativeId, error: error ?? new SourceError(`${nativeId} could not be read`) };
}

function changedSince(task: WmTaskAccess, watermark: string): boolean {
  return task.modified_at !== undefined && task.modified_at >= watermark;
}

/** Native file ids by kind (ids of another shape are not this adapter's: left unanswered). */
function splitIds(ids: readonly string[]): { tasks: string[]; attachments: string[] } {
  const out = { tasks: [] as string[], attachments: [] as string[] };
  for (const id of ids) {
    const [kind, gid] = id.split(':');
    if (kind === 'task' && gid) out.tasks.push(gid);
    else if (kind === 'attachment' && gid) out.attachments.push(gid);
  }
  return out;
}
