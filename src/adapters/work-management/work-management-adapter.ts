import type { AccessReconcilingAdapter, AdapterContext, LiveFile, SettleEvent, SettleRequest, SyncEvent } from '../adapter';
import { throwIfAborted } from '../../lib/abort-error';
import { CheckpointExpiredError, SourceError } from '../source-error';
import { WorkManagementApi, type ApiCounters, type HttpOverrides } from './work-management-api';
import { workManagementCheckpointSchema, type WorkManagementCheckpoint } from './work-management-checkpoint';
import { resolveWorkManagementConfig, type WorkManagementConfig, type WorkManagementConfigInput } from './work-management-config';
import { crawlDirectory, directoryEvents, directoryGroupIds, directoryUsers, resolveWorkspace, type Directory } from './work-management-directory';
import { bootstrapStream, planChanges, readStream } from './work-management-events';
import { compareGids, fileId } from './work-management-mapping';
import { liveFiles, settle, type ReconcileState } from './work-management-reconcile';
import type { WmEvent, WmProject, WmTaskRecord, WmWorkspace } from './work-management-records';
import { TASK_FIELDS, TaskCrawler, projectAttachmentEvents, readTasks, type TaskContext } from './work-management-tasks';

/**
 * `modified_since` is compared with the service's clock: the watermark is the run's start less
 * this margin, so a few minutes of clock skew cannot hide a change (re-reading a task that did
 * not change writes nothing).
 */
const WATERMARK_MARGIN_MS = 5 * 60_000;
/** A full run yields a resumable checkpoint after a project once this many tasks or this long have passed. */
const CHECKPOINT_EVERY = { tasks: 200, ms: 10_000 } as const;

export interface WorkManagementAdapterOptions {
  /** Transport and retry overrides (tests point them at a mock and a fake clock). */
  http?: HttpOverrides;
  /** Gather concurrent reads into `POST /batch` calls (default true). */
  batch?: boolean;
  /** How often a full run yields a resumable checkpoint (after a project; default 200 tasks or 10 s). */
  checkpointEvery?: { tasks: number; ms: number };
}

/** What the last run did, for benchmarks and logs. */
export interface WorkManagementRunStats extends ApiCounters {
  mode: 'full' | 'incremental';
  tasks: number;
  attachments: number;
  projects: number;
  teams: number;
  users: number;
  events: number;
}

interface Run {
  api: WorkManagementApi;
  stats: Omit<WorkManagementRunStats, keyof ApiCounters>;
  /** Set by an incremental run that completed: access reconciliation continues from it. */
  reconcile?: ReconcileState;
}

/**
 * Syncs one workspace of the work-management API: each task becomes an HTML page (notes, custom
 * fields, subtasks, comments, attachment links), each attachment of a supported type a binary
 * file, users become users, and the workspace's members, teams, inherited portfolios and
 * projects become groups with direct members. A task's access list is its projects' groups plus
 * its assignee and followers; an attachment's is its task's (or project's).
 *
 * Full runs read the directory, then each project's tasks, then tasks in no project through the
 * members' task lists, each task with its comments, attachments and subtasks (recursively).
 * Incremental runs read the events streams since the last run (a full run takes its sync tokens
 * before it reads anything), the directory again, and the tasks changed since the watermark.
 */
export class WorkManagementAdapter implements AccessReconcilingAdapter<WorkManagementCheckpoint> {
  readonly name: string;
  readonly checkpointSchema = workManagementCheckpointSchema;
  private current: Run | undefined;

  constructor(
    readonly config: WorkManagementConfig,
    private readonly options: WorkManagementAdapterOptions = {},
  ) {
    this.name = config.sourceName;
  }

  /** Counters of the last (or current) run; downloads made later by the engine are counted too. */
  get lastRun(): WorkManagementRunStats | undefined {
    const run = this.current;
    return run ? { ...run.stats, ...run.api.stats } : undefined;
  }

  /**
   * Users, groups, then every project's tasks (a checkpoint after a project now and then), then
   * tasks in no project, then the final checkpoint. `resume` (a checkpoint of an interrupted full
   * run) skips the projects it lists as done, and keeps its sync tokens and watermark so nothing
   * that changed since that run started is lost.
   */
  async *full(ctx: AdapterContext, resume?: unknown): AsyncIterable<SyncEvent> {
    const run = this.startRun(ctx, 'full');
    const { api } = run;
    const workspace = await resolveWorkspace(api, this.config.workspace);
    const parsed = resume === undefined ? undefined : workManagementCheckpointSchema.safeParse(resume);
    const prior = parsed?.success && parsed.data.progress && parsed.data.workspace === workspace.gid ? parsed.data : undefined;
    if (prior) ctx.logger.info({ projectsDone: prior.progress?.projectsDone.length ?? 0 }, 'work-management: resuming a full sync');

    // Sync tokens before anything is read: what changes during the crawl is in the next run's events.
    const watermark = prior?.watermark ?? this.watermarkNow();
    const workspaceToken = prior ? prior.streams.workspace : await this.bootstrapWorkspaceStream(api, workspace);
    const dir = await crawlDirectory(api, workspace);
    const projectTokens = prior ? { ...prior.streams.projects } : {};
    if (!workspaceToken) {
      // Every project without a stream gets one before its tasks are read (on a resumed run: those created since).
      Object.assign(projectTokens, await this.bootstrapStreams(api, dir.projects.map((p) => p.gid).filter((gid) => !(gid in projectTokens))));
    }
    const streams: WorkManagementCheckpoint['streams'] = { ...(workspaceToken ? { workspace: workspaceToken } : {}), projects: projectTokens, tasks: { ...(prior?.streams.tasks ?? {}) } };
    this.countDirectory(run, dir);

    for (const event of directoryEvents(dir)) {
      throwIfAborted(ctx.signal);
      yield event;
    }

    const taskCtx = this.taskContext(api, dir, ctx.signal);
    const crawler = new TaskCrawler(taskCtx);
    const attachments = new Map(Object.entries(prior?.attachments ?? {}));
    const done = new Set(prior?.progress?.projectsDone ?? []);
    const checkpoint = (progress: boolean): WorkManagementCheckpoint => {
      for (const [gid, ids] of crawler.attachments) {
        if (ids.length > 0) attachments.set(gid, ids);
        else attachments.delete(gid);
      }
      return {
        version: 1,
        workspace: workspace.gid,
        watermark,
        streams: { ...streams, projects: { ...streams.projects }, tasks: { ...streams.tasks } },
        projects: dir.projects.map((p) => p.gid),
        users: directoryUsers(dir).map((u) => u.nativeId),
        inactive: directoryUsers(dir).filter((u) => !u.active).map((u) => u.nativeId),
        groups: directoryGroupIds(dir),
        attachments: Object.fromEntries([...attachments].sort(([a], [b]) => compareGids(a, b))),
        descendants: descendantsOf(Object.keys(streams.tasks), crawler, prior?.descendants ?? {}),
        failed: [...crawler.failed].sort(compareGids),
        ...(progress ? { progress: { projectsDone: [...done] } } : {}),
      };
    };
    yield { type: 'checkpoint', checkpoint: checkpoint(true) };

    const every = this.options.checkpointEvery ?? CHECKPOINT_EVERY;
    let sinceCheckpoint = { tasks: crawler.tasks, at: Date.now() };
    for (const project of dir.projects) {
      if (done.has(project.gid)) continue;
      yield* this.crawlProject(taskCtx, crawler, project);
      done.add(project.gid);
      if (crawler.tasks - sinceCheckpoint.tasks >= every.tasks || Date.now() - sinceCheckpoint.at >= every.ms) {
        yield { type: 'checkpoint', checkpoint: checkpoint(true) };
        sinceCheckpoint = { tasks: crawler.tasks, at: Date.now() };
      }
    }
    yield* this.crawlTaskLists(taskCtx, crawler, dir);
    if (!streams.workspace) {
      // Tasks in no project are in no project stream: each gets a stream of its own.
      Object.assign(streams.tasks, await this.bootstrapStreams(api, [...crawler.orphans].filter((gid) => !(gid in streams.tasks))));
    }
    run.stats.tasks = crawler.tasks;
    run.stats.attachments = crawler.attachmentFiles;
    yield { type: 'checkpoint', checkpoint: checkpoint(false) };
  }

  /**
   * Since `since`: the events of its streams (412: the checkpoint has expired), the directory
   * again (users, groups; deletes for those gone), the tasks the events name, the tasks changed
   * since the watermark, every task of a project that is new or renamed, then deletes for tasks
   * and attachments gone, then a new checkpoint.
   */
  async *changes(ctx: AdapterContext, since: WorkManagementCheckpoint): AsyncIterable<SyncEvent> {
    if (since.progress) throw new CheckpointExpiredError('The stored checkpoint belongs to an unfinished full run');
    const run = this.startRun(ctx, 'incremental');
    const { api } = run;
    const workspace = await resolveWorkspace(api, this.config.workspace ?? since.workspace);
    if (workspace.gid !== since.workspace) throw new CheckpointExpiredError(`The checkpoint is of workspace ${since.workspace}, not of ${workspace.gid}`);
    const watermark = this.watermarkNow();

    // 1. What happened since the last run, and fresh tokens to continue from.
    const feed = await this.readFeed(api, workspace, since);
    run.stats.events = feed.events.length;
    const plan = planChanges(feed.events);

    // 2. The permission graph, read again whole: memberships, privacy and guests are all in it.
    const dir = await crawlDirectory(api, workspace);
    this.countDirectory(run, dir);
    const reactivated = since.inactive.filter((u) => dir.people.active.has(u));
    if (reactivated.length > 0) {
      // While inactive they were left out of the access lists of tasks re-read meanwhile, and which
      // tasks they follow cannot be asked for: only a full run restores them exactly.
      throw new CheckpointExpiredError(`${reactivated.length} user(s) became active again (${reactivated.slice(0, 5).join(', ')}); a full sync restores their access`);
    }
    const known = new Set(since.projects);
    const streams: WorkManagementCheckpoint['streams'] = { ...feed.streams, projects: { ...feed.streams.projects }, tasks: { ...feed.streams.tasks } };
    // Projects to read whole: new ones, and (per-project streams) any without a stream so far,
    // which get one before their tasks are read, as a full run does.
    const newProjects = dir.projects.filter((p) => !known.has(p.gid) || (!streams.workspace && !(p.gid in streams.projects)));
    if (!streams.workspace) {
      for (const gid of Object.keys(streams.projects)) if (!dir.projects.some((p) => p.gid === gid)) delete streams.projects[gid];
      Object.assign(streams.projects, await this.bootstrapStreams(api, newProjects.map((p) => p.gid)));
    }

    const userIds = directoryUsers(dir).map((u) => u.nativeId);
    const groupIds = directoryGroupIds(dir);
    for (const event of directoryEvents(dir)) {
      throwIfAborted(ctx.signal);
      yield event;
    }
    const stillUsers = new Set(userIds);
    for (const nativeId of since.users.filter((u) => !stillUsers.has(u))) yield { type: 'delete', kind: 'user', nativeId };
    const stillGroups = new Set(groupIds);
    for (const nativeId of since.groups.filter((g) => !stillGroups.has(g))) yield { type: 'delete', kind: 'group', nativeId };

    // 3. Tasks.
    const taskCtx = this.taskContext(api, dir, ctx.signal);
    const crawler = new TaskCrawler(taskCtx);
    const attachments = new Map(Object.entries(since.attachments));
    for (const gid of plan.deleted) crawler.seen.add(gid);

    const projectsById = new Map(dir.projects.map((p) => [p.gid, p]));
    const fresh = new Set(newProjects.map((p) => p.gid));
    const recrawl = [...newProjects, ...[...plan.renamedProjects].map((g) => projectsById.get(g)).filter((p): p is WmProject => p !== undefined && !fresh.has(p.gid))];
    const recrawled = new Set(recrawl.map((p) => p.gid));
    for (const project of recrawl) yield* this.crawlProject(taskCtx, crawler, project);
    for (const gid of plan.projectAttachments) {
      const project = projectsById.get(gid);
      if (project && !recrawled.has(gid)) yield* this.projectAttachments(taskCtx, crawler, project);
    }

    // Changed since the watermark: a safety net for events the stream lost (delivery is at most once).
    yield* crawler.process(await this.modifiedSince(api, dir, since.watermark, recrawled, !streams.workspace), { recurse: false });

    // Named by events (moves, comments, followers…), whose stream is gone, or failed last time, and not read yet.
    const goneFamilies = feed.goneTasks.flatMap((gid) => [gid, ...(since.descendants[gid] ?? [])]);
    const pending = [...new Set([...plan.reread, ...goneFamilies, ...since.failed])].filter((gid) => !crawler.seen.has(gid)).sort(compareGids);
    const reread = await readTasks(api, pending);
    for (const gid of reread.gone) {
      crawler.seen.add(gid);
      plan.deleted.add(gid);
    }
    yield* crawler.process(reread.tasks, { recurse: false });
    for (const gid of reread.failed) {
      crawler.failed.add(gid.gid);
      yield { type: 'failure', kind: 'file', nativeId: fileId.task(gid.gid), error: gid.error };
    }

    // 4. Deletes: tasks gone (with their attachments), attachments gone from what was re-read.
    const deletes = new Set<string>();
    const owner = new Map<string, string>();
    for (const [parent, ids] of attachments) for (const id of ids) owner.set(id, parent);
    for (const gid of [...plan.deleted, ...crawler.vanished]) {
      deletes.add(fileId.task(gid));
      for (const id of attachments.get(gid) ?? []) deletes.add(fileId.attachment(id));
      attachments.delete(gid);
    }
    for (const [parent, ids] of crawler.attachments) {
      const now = new Set(ids);
      for (const id of attachments.get(parent) ?? []) if (!now.has(id)) deletes.add(fileId.attachment(id));
      if (ids.length > 0) attachments.set(parent, ids);
      else attachments.delete(parent);
    }
    for (const id of plan.deletedAttachments) {
      const parent = owner.get(id);
      if (parent === undefined) continue; // never synced (a link, or an unsupported type)
      const current = attachments.get(parent);
      if (current?.includes(id)) {
        const rest = current.filter((x) => x !== id);
        if (rest.length > 0) attachments.set(parent, rest);
        else attachments.delete(parent);
      }
      if (!crawler.attachments.get(parent)?.includes(id)) deletes.add(fileId.attachment(id));
    }
    for (const nativeId of [...deletes].sort()) {
      throwIfAborted(ctx.signal);
      yield { type: 'delete', kind: 'file', nativeId };
    }
    run.stats.tasks = crawler.tasks;
    run.stats.attachments = crawler.attachmentFiles;
    if (!streams.workspace) {
      // Task streams follow the tasks in no project: dropped when a task is gone or joined a
      // project (or became a subtask), started for tasks that left every project or are new.
      for (const gid of Object.keys(streams.tasks)) if (plan.deleted.has(gid) || crawler.vanished.has(gid) || crawler.homed.has(gid)) delete streams.tasks[gid];
      Object.assign(streams.tasks, await this.bootstrapStreams(api, [...crawler.orphans].filter((gid) => !(gid in streams.tasks))));
    }

    const failed = new Set([...crawler.failed].filter((gid) => !plan.deleted.has(gid)));
    const checkpoint: WorkManagementCheckpoint = {
      version: 1,
      workspace: workspace.gid,
      watermark,
      streams,
      projects: dir.projects.map((p) => p.gid),
      users: userIds,
      inactive: directoryUsers(dir).filter((u) => !u.active).map((u) => u.nativeId),
      groups: groupIds,
      attachments: Object.fromEntries([...attachments].sort(([a], [b]) => compareGids(a, b))),
      descendants: descendantsOf(Object.keys(streams.tasks), crawler, since.descendants),
      failed: [...failed].sort(compareGids),
    };
    run.reconcile = { task: taskCtx, attachments, watermark: since.watermark, read: crawler.seen, checkpoint };
    yield { type: 'checkpoint', checkpoint };
  }

  /**
   * Access reconciliation (after `changes()`, in the same run): every project's tasks with only
   * the fields access depends on, their attachments, and every project's own attachments. See
   * work-management-reconcile.ts.
   */
  liveFiles(_ctx: AdapterContext): AsyncIterable<LiveFile> {
    return liveFiles(this.reconcileState());
  }

  /** Tasks in no project read alone (gone, live, or changed and read whole), missing files read whole. */
  settle(_ctx: AdapterContext, request: SettleRequest): AsyncIterable<SettleEvent> {
    return settle(this.reconcileState(), request);
  }

  private reconcileState(): ReconcileState {
    const state = this.current?.reconcile;
    if (!state) throw new SourceError('Access reconciliation continues an incremental run of the same adapter: run changes() first');
    return state;
  }

  // ----------------------------------------------------------------------------------------------

  private startRun(ctx: AdapterContext, mode: 'full' | 'incremental'): Run {
    const api = new WorkManagementApi({
      baseUrl: this.config.baseUrl,
      token: this.config.token,
      logger: ctx.logger,
      signal: ctx.signal,
      concurrency: this.config.concurrency,
      batch: this.options.batch ?? true,
      ...(this.options.http ?? {}),
    });
    const run: Run = { api, stats: { mode, tasks: 0, attachments: 0, projects: 0, teams: 0, users: 0, events: 0 } };
    this.current = run;
    return run;
  }

  private countDirectory(run: Run, dir: Directory): void {
    run.stats.projects = dir.projects.length;
    run.stats.teams = dir.teams.length;
    run.stats.users = dir.users.length;
  }

  private taskContext(api: WorkManagementApi, dir: Directory, signal: AbortSignal): TaskContext {
    return { api, dir, template: this.config.template, signal };
  }

  private watermarkNow(): string {
    return new Date(Date.now() - WATERMARK_MARGIN_MS).toISOString();
  }

  /** The workspace stream's first token, unless streams are per project (or the service has none). */
  private async bootstrapWorkspaceStream(api: WorkManagementApi, workspace: WmWorkspace): Promise<string | undefined> {
    if (this.config.eventStreams === 'projects') return undefined;
    const token = await bootstrapStream(api, `/workspaces/${workspace.gid}/events`);
    if (!token && this.config.eventStreams === 'workspace') {
      throw new SourceError(`The workspace events stream of ${workspace.gid} is not available to this token (WORK_MANAGEMENT_EVENT_STREAMS=workspace needs a service account on a plan that has it)`);
    }
    return token;
  }

  /** A first token per resource (a project or a task); those the token cannot stream get none (full runs still read them). */
  private async bootstrapStreams(api: WorkManagementApi, resources: readonly string[]): Promise<Record<string, string>> {
    const tokens = await Promise.all(resources.map(async (gid) => [gid, await bootstrapStream(api, '/events', { resource: gid })] as const));
    return Object.fromEntries(tokens.filter((t): t is readonly [string, string] => t[1] !== undefined));
  }

  /**
   * Events of the workspace stream, or of every project stream and every stream of a task in no
   * project; any expired token expires the checkpoint. A project stream that is gone (404/403)
   * needs nothing (the project's group goes with the directory); a task stream that is gone names
   * a task to read again (and delete when it 404s).
   */
  private async readFeed(api: WorkManagementApi, workspace: WmWorkspace, since: WorkManagementCheckpoint): Promise<{ events: WmEvent[]; streams: WorkManagementCheckpoint['streams']; goneTasks: string[] }> {
    if (since.streams.workspace) {
      const read = await readStream(api, `/workspaces/${workspace.gid}/events`, {}, since.streams.workspace);
      if (read.kind !== 'ok') throw new CheckpointExpiredError(`The workspace events sync token is no longer accepted (${read.kind})`);
      return { events: read.events, streams: { workspace: read.token, projects: {}, tasks: {} }, goneTasks: [] };
    }
    const read = (tokens: Record<string, string>) => Promise.all(Object.entries(tokens).map(async ([gid, token]) => [gid, await readStream(api, '/events', { resource: gid }, token)] as const));
    const [projectReads, taskReads] = await Promise.all([read(since.streams.projects), read(since.streams.tasks)]);
    const events: WmEvent[] = [];
    const streams: WorkManagementCheckpoint['streams'] = { projects: {}, tasks: {} };
    const goneTasks: string[] = [];
    for (const [kind, reads] of [['project', projectReads], ['task', taskReads]] as const) {
      for (const [gid, r] of reads) {
        if (r.kind === 'expired') throw new CheckpointExpiredError(`The events sync token of ${kind} ${gid} is no longer accepted`);
        if (r.kind === 'gone') {
          if (kind === 'task') goneTasks.push(gid);
          continue;
        }
        events.push(...r.events);
        (kind === 'project' ? streams.projects : streams.tasks)[gid] = r.token;
      }
    }
    return { events, streams, goneTasks };
  }

  /** A project's tasks (with subtasks) and its own attachments. */
  private async *crawlProject(ctx: TaskContext, crawler: TaskCrawler, project: WmProject): AsyncGenerator<SyncEvent> {
    yield* crawler.walk(ctx.api.list<WmTaskRecord>(`/projects/${project.gid}/tasks`, {}, TASK_FIELDS), { recurse: true });
    yield* this.projectAttachments(ctx, crawler, project);
  }

  private async *projectAttachments(ctx: TaskContext, crawler: TaskCrawler, project: WmProject): AsyncGenerator<SyncEvent> {
    const { events, attachmentIds } = await projectAttachmentEvents(ctx, project);
    crawler.attachments.set(project.gid, attachmentIds);
    crawler.attachmentFiles += attachmentIds.length;
    for (const event of events) {
      throwIfAborted(ctx.signal);
      yield event;
    }
  }

  /**
   * Tasks in no project live in their assignee's task list ("My Tasks"): list every member's
   * list (compact), then read in full only the tasks no project showed.
   */
  private async *crawlTaskLists(ctx: TaskContext, crawler: TaskCrawler, dir: Directory): AsyncGenerator<SyncEvent> {
    const lists = await Promise.all(
      dir.memberships.map(async (m) => {
        const list = m.user_task_list?.gid ?? (await this.userTaskList(ctx.api, m.user.gid, dir.workspace.gid));
        return list ? ctx.api.all<{ gid: string }>(`/user_task_lists/${list}/tasks`, {}, 'name') : [];
      }),
    );
    const unseen = [...new Set(lists.flat().map((t) => t.gid))].filter((gid) => !crawler.seen.has(gid));
    const read = await readTasks(ctx.api, unseen);
    for (const f of read.failed) {
      crawler.failed.add(f.gid);
      yield { type: 'failure', kind: 'file', nativeId: fileId.task(f.gid), error: f.error };
    }
    yield* crawler.process(read.tasks, { recurse: true });
  }

  private async userTaskList(api: WorkManagementApi, user: string, workspace: string): Promise<string | undefined> {
    try {
      const { data } = await api.get<{ data: { gid: string } }>(`/users/${user}/user_task_list`, { workspace, opt_fields: 'name' });
      return data.gid;
    } catch (error) {
      if (error instanceof SourceError && error.action === 'skip-item') return undefined;
      throw error;
    }
  }

  /**
   * Tasks of every project (not crawled whole in this run) modified since the watermark, and with
   * `byAssignee` (no workspace stream: tasks in no project have no events) every member's.
   */
  private async modifiedSince(api: WorkManagementApi, dir: Directory, watermark: string, skip: ReadonlySet<string>, byAssignee: boolean): Promise<WmTaskRecord[]> {
    const listings = [
      ...dir.projects.filter((p) => !skip.has(p.gid)).map((p) => api.all<WmTaskRecord>('/tasks', { project: p.gid, modified_since: watermark }, TASK_FIELDS)),
      ...(byAssignee ? dir.memberships.map((m) => api.all<WmTaskRecord>('/tasks', { assignee: m.user.gid, workspace: dir.workspace.gid, modified_since: watermark }, TASK_FIELDS)) : []),
    ];
    const seen = new Set<string>();
    return (await Promise.all(listings)).flat().filter((t) => (seen.has(t.gid) ? false : (seen.add(t.gid), true)));
  }
}

/** Builds the adapter from settings (validated; defaults filled in). */
export function createWorkManagementAdapter(input: WorkManagementConfigInput, options: WorkManagementAdapterOptions = {}): WorkManagementAdapter {
  return new WorkManagementAdapter(resolveWorkManagementConfig(input), options);
}

/** Subtasks (at any depth) of each task with a stream of its own: as read in this run, else as before. */
function descendantsOf(tasks: readonly string[], crawler: TaskCrawler, before: Readonly<Record<string, string[]>>): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const gid of [...tasks].sort(compareGids)) {
    const list = crawler.children.has(gid) ? [...new Set([...crawler.descendants(gid), ...(before[gid] ?? [])])] : (before[gid] ?? []);
    if (list.length > 0) out[gid] = list.sort(compareGids);
  }
  return out;
}
