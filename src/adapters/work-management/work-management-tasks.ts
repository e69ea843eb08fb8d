import type { Readable } from 'node:stream';
import type { AccessEntry, SyncEvent } from '../adapter';
import { isAbortError, throwIfAborted } from '../../lib/abort-error';
import { SourceError, SourceNotFoundError, SourcePermissionError } from '../source-error';
import type { WorkManagementApi } from './work-management-api';
import type { Directory } from './work-management-directory';
import { attachmentFile, attachmentLink, fileId, groupId, isSyncedAttachment, renderTaskHtml, taskAccess, taskFile } from './work-management-mapping';
import { recordStamp } from './work-management-record-stamp';
import type { TaskHome, WmAttachment, WmProject, WmStory, WmTaskRecord } from './work-management-records';

/** `opt_fields` of a task: everything the page, the access list and the crawl need, in one read. */
export const TASK_FIELDS = [
  'name',
  'notes',
  'completed',
  'due_on',
  'created_at',
  'modified_at',
  'permalink_url',
  'resource_subtype',
  'num_subtasks',
  'workspace',
  'assignee.name',
  'followers',
  'projects.name',
  'projects.permalink_url',
  'parent.name',
  'parent.permalink_url',
  'custom_fields.name',
  'custom_fields.display_value',
  'custom_fields.enabled',
  'created_by.name',
].join(',');

export const STORY_FIELDS = 'type,text,created_at,created_by.name';
/** No `download_url` here: it expires in minutes, so it is read right before each download. */
export const ATTACHMENT_FIELDS = 'name,host,size,created_at,permanent_url,view_url';
/** Subtasks nest about five levels deep at most (reference §5.9). */
export const MAX_SUBTASK_DEPTH = 5;
/** How many times a download is retried with a freshly read URL when the previous one was refused. */
const DOWNLOAD_ATTEMPTS = 3;

/** A task with what its page shows: comments, attachments and subtasks. */
export interface TaskBundle {
  task: WmTaskRecord;
  stories: WmStory[];
  attachments: WmAttachment[];
  subtasks: WmTaskRecord[];
}

/** What a task's files need from the run: the API, the directory, the template. */
export interface TaskContext {
  api: WorkManagementApi;
  dir: Directory;
  template: string;
  signal: AbortSignal;
}

/** Stories and attachments of a task, and its subtasks when it has any (`num_subtasks`). */
export async function loadBundle(api: WorkManagementApi, task: WmTaskRecord): Promise<TaskBundle> {
  const [stories, attachments, subtasks] = await Promise.all([
    api.all<WmStory>(`/tasks/${task.gid}/stories`, {}, STORY_FIELDS),
    api.all<WmAttachment>('/attachments', { parent: task.gid }, ATTACHMENT_FIELDS),
    task.num_subtasks === 0 ? Promise.resolve([]) : api.all<WmTaskRecord>(`/tasks/${task.gid}/subtasks`, {}, TASK_FIELDS),
  ]);
  return { task, stories, attachments, subtasks };
}

/** Full records of tasks by gid (batched): those gone (404/403) and those that failed are told apart. */
export async function readTasks(
  api: WorkManagementApi,
  gids: readonly string[],
): Promise<{ tasks: WmTaskRecord[]; gone: string[]; failed: Array<{ gid: string; error: Error }> }> {
  const results = await Promise.all(
    gids.map((gid) =>
      api.get<{ data: WmTaskRecord }>(`/tasks/${gid}`, { opt_fields: TASK_FIELDS }).then(
        (r) => ({ gid, task: r.data, error: undefined }),
        (error: unknown) => ({ gid, task: undefined, error }),
      ),
    ),
  );
  const out = { tasks: [] as WmTaskRecord[], gone: [] as string[], failed: [] as Array<{ gid: string; error: Error }> };
  for (const r of results) {
    if (r.task) out.tasks.push(r.task);
    else if (r.error instanceof SourceNotFoundError || r.error instanceof SourcePermissionError) out.gone.push(r.gid);
    else if (r.error instanceof SourceError && r.error.action !== 'abort') out.failed.push({ gid: r.gid, error: r.error });
    else throw r.error;
  }
  return out;
}

/**
 * Opens an attachment's bytes: reads the attachment again for a fresh `download_url` (they
 * expire in about two minutes, so a listed one is never trusted), then downloads it without
 * credentials. A refused download (expired or not yet valid signature) is retried with a new URL.
 */
export async function openAttachment(api: WorkManagementApi, gid: string): Promise<Readable> {
  for (let attempt = 1; ; attempt += 1) {
    const { data } = await api.get<{ data: WmAttachment }>(`/attachments/${gid}`, { opt_fields: 'download_url,size,name' });
    if (!data.download_url) throw new SourceNotFoundError(`Attachment ${gid} has no download_url (its host does not serve the bytes)`);
    try {
      return await api.download(data.download_url);
    } catch (error) {
      const refused = error instanceof SourcePermissionError || error instanceof SourceNotFoundError;
      if (!refused || attempt >= DOWNLOAD_ATTEMPTS) throw error;
    }
  }
}

/** The task's file and its attachments' files (all with the task's access list). */
export function bundleEvents(ctx: TaskContext, bundle: TaskBundle): { events: SyncEvent[]; attachmentIds: string[] } {
  const { task } = bundle;
  const access = taskAccess(task, ctx.dir.people);
  const userNames = new Map(ctx.dir.users.map((u) => [u.gid, u.name]));
  const html = renderTaskHtml(
    {
      task,
      projects: task.projects.map((p) => ({ name: p.name ?? p.gid, ...(p.permalink_url ? { permalink: p.permalink_url } : {}) })),
      ...(task.parent ? { parent: { name: task.parent.name ?? task.parent.gid, permalink: task.parent.permalink_url ?? '' } } : {}),
      subtasks: bundle.subtasks.map((s) => ({ name: s.name, permalink: s.permalink_url, completed: s.completed === true })),
      comments: bundle.stories,
      attachments: bundle.attachments.map((a) => ({ name: a.name, url: attachmentLink(a, task.permalink_url) })),
      userNames,
    },
    ctx.template,
  );
  const creator = task.created_by ? (ctx.dir.users.find((u) => u.gid === task.created_by?.gid)?.email ?? task.created_by.name ?? undefined) : undefined;
  const events: SyncEvent[] = [{ type: 'file', file: taskFile(task, html, access, ctx.dir.workspace.gid, creator ?? undefined) }];
  const parent = { nativeId: fileId.task(task.gid), name: task.name || task.gid, url: task.permalink_url };
  const attachmentIds = attachmentEvents(ctx, bundle.attachments, parent, access, events);
  return { events, attachmentIds };
}

/** Files of a project's own attachments ("key resources"): the project's audience sees them. */
export async function projectAttachmentEvents(ctx: TaskContext, project: WmProject): Promise<{ events: SyncEvent[]; attachmentIds: string[] }> {
  const attachments = await ctx.api.all<WmAttachment>('/attachments', { parent: project.gid }, ATTACHMENT_FIELDS);
  const events: SyncEvent[] = [];
  const parent = { nativeId: groupId.project(project.gid), name: project.name, url: project.permalink_url ?? '' };
  const attachmentIds = attachmentEvents(ctx, attachments, parent, [{ type: 'GROUP', nativeId: groupId.project(project.gid) }], events);
  return { events, attachmentIds };
}

function attachmentEvents(
  ctx: TaskContext,
  attachments: readonly WmAttachment[],
  parent: { nativeId: string; name: string; url: string },
  access: readonly AccessEntry[],
  out: SyncEvent[],
): string[] {
  const ids: string[] = [];
  for (const a of attachments) {
    if (!isSyncedAttachment(a)) continue;
    ids.push(a.gid);
    out.push({ type: 'file', file: attachmentFile(a, parent, access, () => openAttachment(ctx.api, a.gid)) });
  }
  return ids;
}

/**
 * Walks tasks to files, once each however many ways a task is reached (several projects, a user
 * task list, a parent), loading the tasks of one page together so their reads share batches,
 * then their subtasks level by level (at most `MAX_SUBTASK_DEPTH` below where the walk started).
 * It records which attachments each task has (a later run deletes them with the task), which
 * tasks could not be read, and which vanished while being read.
 */
export class TaskCrawler {
  readonly seen = new Set<string>();
  /** Task (or project) gid → gids of its synced attachments, for everything read in this run. */
  readonly attachments = new Map<string, string[]>();
  readonly failed = new Set<string>();
  readonly vanished = new Set<string>();
  /** Task gid → whether it is in a project, and its parent, for every task read in this run (see `streamRoots`). */
  readonly homes = new Map<string, TaskHome>();
  /** Task gid → gids of its subtasks, for every task read in this run. */
  readonly children = new Map<string, string[]>();
  /** Task gid → its record's stamp (`recordStamp`) as this run read it. */
  readonly stamps = new Map<string, string>();
  tasks = 0;
  attachmentFiles = 0;

  constructor(private readonly ctx: TaskContext) {}

  /** Files of `tasks` and, with `recurse`, of their subtasks. Tasks already seen in this run are skipped. */
  async *process(tasks: readonly WmTaskRecord[], options: { recurse: boolean; depth?: number }): AsyncGenerator<SyncEvent> {
    const depth = options.depth ?? 0;
    const ws = this.ctx.dir.workspace.gid;
    const fresh: WmTaskRecord[] = [];
    for (const t of tasks) {
      if (this.seen.has(t.gid) || (t.workspace && t.workspace.gid !== ws)) continue;
      this.seen.add(t.gid);
      fresh.push(t);
    }
    if (fresh.length === 0) return;
    const loaded = await Promise.all(
      fresh.map((task) =>
        loadBundle(this.ctx.api, task).then(
          (bundle) => ({ task, bundle, error: undefined }),
          (error: unknown) => ({ task, bundle: undefined, error }),
        ),
      ),
    );
    const next: WmTaskRecord[] = [];
    for (const { task, bundle, error } of loaded) {
      throwIfAborted(this.ctx.signal);
      if (!bundle) {
        if (isAbortError(error)) throw error;
        if (error instanceof SourceNotFoundError || error instanceof SourcePermissionError) {
          // Gone (or no longer visible) between the listing and the read.
          this.vanished.add(task.gid);
          continue;
        }
        if (error instanceof SourceError && error.action === 'abort') throw error;
        this.failed.add(task.gid);
        yield { type: 'failure', kind: 'file', nativeId: fileId.task(task.gid), error: error instanceof Error ? error : new Error(String(error)) };
        continue;
      }
      const { events, attachmentIds } = bundleEvents(this.ctx, bundle);
      this.tasks += 1;
      this.attachmentFiles += attachmentIds.length;
      this.attachments.set(task.gid, attachmentIds);
      this.children.set(
        task.gid,
        bundle.subtasks.map((s) => s.gid),
      );
      this.homes.set(task.gid, { inProject: task.projects.length > 0, parent: task.parent?.gid ?? null });
      this.stamps.set(task.gid, recordStamp(task));
      for (const event of events) {
        throwIfAborted(this.ctx.signal);
        yield event;
      }
      if (options.recurse && depth < MAX_SUBTASK_DEPTH) next.push(...bundle.subtasks);
    }
    if (next.length > 0) yield* this.process(next, { recurse: options.recurse, depth: depth + 1 });
  }

  /** Forgets a task read in this run that is gone since (its files are deleted). */
  forget(gid: string): void {
    for (const map of [this.attachments, this.children, this.homes, this.stamps]) map.delete(gid);
    this.vanished.add(gid);
  }

  /** Files of every task of a listing, page by page (then their subtasks). */
  async *walk(pages: AsyncIterable<WmTaskRecord>, options: { recurse: boolean }): AsyncGenerator<SyncEvent> {
    let page: WmTaskRecord[] = [];
    for await (const task of pages) {
      page.push(task);
      if (page.length >= 100) {
        yield* this.process(page, options);
        page = [];
      }
    }
    yield* this.process(page, options);
  }
}
