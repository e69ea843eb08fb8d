import type { AccessOnlyAdapter, AccessReconcilingAdapter, AdapterContext, LiveFile, SettleEvent, SettleRequest, SyncEvent } from '../adapter';
import { throwIfAborted } from '../../lib/abort-error';
import { FullRunRequired, SourceError } from '../source-error';
import { WorkManagementApi, type ApiCounters, type HttpOverrides } from './work-management-api';
import { changedTasks, identityChanges, refuseReactivated } from './work-management-changes';
import { workManagementCheckpointSchema, type WorkManagementCheckpoint } from './work-management-checkpoint';
import { resolveWorkManagementConfig, type WorkManagementConfig, type WorkManagementConfigInput } from './work-management-config';
import { crawlProject, crawlTaskLists } from './work-management-crawl';
import { fileDeletes } from './work-management-deletes';
import { crawlDirectory, directoryEvents, resolveWorkspace, type Directory } from './work-management-directory';
import { planChanges } from './work-management-events';
import { liveFiles, settle, type LiveListing, type ReconcileState } from './work-management-reconcile';
import { checkpointOf, mergeAttachments, subtasksAfter } from './work-management-run-checkpoint';
import { followNewRoots } from './work-management-new-roots';
import { startTreeStreams } from './work-management-tree-refresh';
import { bootstrapStreams, bootstrapWorkspaceStream, projectStreams, readFeed } from './work-management-streams';
import { TaskCrawler, type TaskContext } from './work-management-tasks';

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
  mode: 'full' | 'incremental' | 'access';
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
  /** Set by `permissions()` (an access-only run): what its `liveFiles` lists with. */
  listing?: LiveListing;
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
 * Access-only runs read the directory (`permissions`), then every project's tasks with only the
 * fields access depends on (`liveFiles`): no notes, comments or attachment bytes.
 */
export class WorkManagementAdapter implements AccessReconcilingAdapter<WorkManagementCheckpoint>, AccessOnlyAdapter {
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
    const workspaceToken = prior ? prior.streams.workspace : await bootstrapWorkspaceStream(api, workspace, this.config.eventStreams);
    const dir = await crawlDirectory(api, workspace);
    const projectTokens = prior ? { ...prior.streams.projects } : {};
    if (!workspaceToken) {
      // Every project without a stream gets one before its tasks are read (on a resumed run: those created since).
      Object.assign(
        projectTokens,
        await bootstrapStreams(
          api,
          dir.projects.map((p) => p.gid).filter((gid) => !(gid in projectTokens)),
        ),
      );
    }
    const streams: WorkManagementCheckpoint['streams'] = {
      ...(workspaceToken ? { workspace: workspaceToken } : {}),
      projects: projectTokens,
      tasks: { ...(prior?.streams.tasks ?? {}) },
    };
    this.countDirectory(run, dir);

    for (const event of directoryEvents(dir)) {
      throwIfAborted(ctx.signal);
      yield event;
    }

    const taskCtx = this.taskContext(api, dir, ctx.signal);
    const crawler = new TaskCrawler(taskCtx);
    const attachments = new Map(Object.entries(prior?.attachments ?? {}));
    const done = new Set(prior?.progress?.projectsDone ?? []);
    let listed = new Map<string, string[]>();
    const checkpoint = (progress: boolean): WorkManagementCheckpoint => {
      mergeAttachments(attachments, crawler.attachments);
      return checkpointOf({
        workspace: workspace.gid,
        watermark,
        streams: { ...streams, projects: { ...streams.projects }, tasks: { ...streams.tasks } },
        dir,
        attachments,
        subtasks: subtasksAfter(prior?.subtasks ?? {}, new Map([...listed, ...crawler.children]), []),
        failed: crawler.failed,
        ...(progress ? { projectsDone: done } : {}),
      });
    };
    yield { type: 'checkpoint', checkpoint: checkpoint(true) };

    const every = this.options.checkpointEvery ?? CHECKPOINT_EVERY;
    let sinceCheckpoint = { tasks: crawler.tasks, at: Date.now() };
    for (const project of dir.projects) {
      if (done.has(project.gid)) continue;
      yield* crawlProject(taskCtx, crawler, project);
      done.add(project.gid);
      if (crawler.tasks - sinceCheckpoint.tasks >= every.tasks || Date.now() - sinceCheckpoint.at >= every.ms) {
        yield { type: 'checkpoint', checkpoint: checkpoint(true) };
        sinceCheckpoint = { tasks: crawler.tasks, at: Date.now() };
      }
    }
    yield* crawlTaskLists(taskCtx, crawler, dir);
    // Tasks in no project are in no project stream: the root of each project-less tree gets a stream of its own.
    if (!streams.workspace) ({ tasks: streams.tasks, listed } = yield* startTreeStreams(taskCtx, crawler, streams.tasks));
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
    if (since.progress) throw new FullRunRequired('The stored checkpoint belongs to an unfinished full run');
    const run = this.startRun(ctx, 'incremental');
    const { api } = run;
    const workspace = await resolveWorkspace(api, this.config.workspace ?? since.workspace);
    if (workspace.gid !== since.workspace) throw new FullRunRequired(`The checkpoint is of workspace ${since.workspace}, not of ${workspace.gid}`);
    const watermark = this.watermarkNow();

    // 1. What happened since the last run, and fresh tokens to continue from.
    const feed = await readFeed(api, workspace, since);
    run.stats.events = feed.events.length;
    const plan = planChanges(feed.events);

    // 2. The permission graph, read again whole: memberships, privacy and guests are all in it.
    const dir = await crawlDirectory(api, workspace);
    this.countDirectory(run, dir);
    refuseReactivated(since, dir);
    const { streams, newProjects } = await projectStreams(api, since, dir, feed.streams);
    yield* identityChanges(dir, since, ctx.signal);

    // 3. Tasks.
    const taskCtx = this.taskContext(api, dir, ctx.signal);
    const crawler = new TaskCrawler(taskCtx);
    const gone = yield* changedTasks(taskCtx, crawler, { plan, since, goneStreams: feed.goneTasks, newProjects, byAssignee: !streams.workspace });
    const deleted = new Set([...plan.deleted, ...gone]);

    // 4. Task streams: the roots of project-less trees. A new root's tree is read again once its
    // stream has a token: what changed in it since the root left its last project reached no stream.
    let listed = new Map<string, string[]>();
    if (!streams.workspace) ({ tasks: streams.tasks, listed } = yield* followNewRoots(taskCtx, crawler, since, streams.tasks, deleted, plan.left));

    // 5. Deletes: tasks gone (with their attachments), attachments gone from what was re-read.
    const { deletes, attachments } = fileDeletes(since.attachments, {
      goneTasks: [...deleted, ...crawler.vanished],
      goneAttachments: plan.deletedAttachments,
      read: crawler.attachments,
    });
    for (const nativeId of deletes) {
      throwIfAborted(ctx.signal);
      yield { type: 'delete', kind: 'file', nativeId };
    }
    run.stats.tasks = crawler.tasks;
    run.stats.attachments = crawler.attachmentFiles;

    const checkpoint = checkpointOf({
      workspace: workspace.gid,
      watermark,
      streams,
      dir,
      attachments,
      subtasks: subtasksAfter(since.subtasks, new Map([...listed, ...crawler.children]), [...deleted, ...crawler.vanished]),
      failed: [...crawler.failed].filter((gid) => !deleted.has(gid)),
    });
    run.reconcile = { task: taskCtx, attachments, watermark: since.watermark, read: crawler.seen, checkpoint };
    yield { type: 'checkpoint', checkpoint };
  }

  /**
   * An access-only run's users and groups: the directory, read whole as every run reads it. With
   * the last stored checkpoint of this workspace (`ctx.checkpoint`), users and groups it lists
   * that are gone are deleted, and its tasks' attachments are listed by `liveFiles` with their
   * task's access. A user active again is simply active: the listing recomputes every access list.
   */
  async *permissions(ctx: AdapterContext): AsyncIterable<SyncEvent> {
    const run = this.startRun(ctx, 'access');
    const parsed = workManagementCheckpointSchema.safeParse(ctx.checkpoint);
    const stored = parsed.success ? parsed.data : undefined;
    const workspace = await resolveWorkspace(run.api, this.config.workspace ?? stored?.workspace);
    const since = stored?.workspace === workspace.gid ? stored : undefined;
    const dir = await crawlDirectory(run.api, workspace);
    this.countDirectory(run, dir);
    run.listing = { task: this.taskContext(run.api, dir, ctx.signal), attachments: new Map(Object.entries(since?.attachments ?? {})) };
    yield* identityChanges(dir, since ?? { users: [], groups: [] }, ctx.signal);
  }

  /**
   * Every project's tasks with only the fields access depends on, their attachments, and every
   * project's own attachments (work-management-reconcile.ts): after `changes()` for access
   * reconciliation, or after `permissions()` in an access-only run.
   */
  liveFiles(_ctx: AdapterContext): AsyncIterable<LiveFile> {
    const run = this.current;
    const listing = run?.reconcile ?? run?.listing;
    if (!listing) throw new SourceError('The live listing continues a run of the same adapter: run changes() or permissions() first');
    return liveFiles(listing);
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

  private startRun(ctx: AdapterContext, mode: WorkManagementRunStats['mode']): Run {
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
}

/** Builds the adapter from settings (validated; defaults filled in). */
export function createWorkManagementAdapter(input: WorkManagementConfigInput, options: WorkManagementAdapterOptions = {}): WorkManagementAdapter {
  return new WorkManagementAdapter(resolveWorkManagementConfig(input), options);
}
