import { FullRunRequired, SourceError } from '../source-error';
import type { WorkManagementApi } from './work-management-api';
import type { WorkManagementCheckpoint } from './work-management-checkpoint';
import type { WorkManagementConfig } from './work-management-config';
import type { Directory } from './work-management-directory';
import { bootstrapStream, readStream } from './work-management-events';
import type { WmEvent, WmProject, WmWorkspace } from './work-management-records';
import type { TaskCrawler } from './work-management-tasks';

/** What the events streams of a checkpoint said: their events, the tokens to continue from, the tasks whose stream is gone. */
export interface Feed {
  events: WmEvent[];
  streams: WorkManagementCheckpoint['streams'];
  goneTasks: string[];
}

/** The workspace stream's first token, unless streams are per project (or the service has none). */
export async function bootstrapWorkspaceStream(
  api: WorkManagementApi,
  workspace: WmWorkspace,
  eventStreams: WorkManagementConfig['eventStreams'],
): Promise<string | undefined> {
  if (eventStreams === 'projects') return undefined;
  const token = await bootstrapStream(api, `/workspaces/${workspace.gid}/events`);
  if (!token && eventStreams === 'workspace') {
    throw new SourceError(
      `The workspace events stream of ${workspace.gid} is not available to this token (WORK_MANAGEMENT_EVENT_STREAMS=workspace needs a service account on a plan that has it)`,
    );
  }
  return token;
}

/** A first token per resource (a project or a task); those the token cannot stream get none (full runs still read them). */
export async function bootstrapStreams(api: WorkManagementApi, resources: readonly string[]): Promise<Record<string, string>> {
  const tokens = await Promise.all(resources.map(async (gid) => [gid, await bootstrapStream(api, '/events', { resource: gid })] as const));
  return Object.fromEntries(tokens.filter((t): t is readonly [string, string] => t[1] !== undefined));
}

/**
 * Events of the workspace stream, or of every project stream and every stream of a task in no
 * project; any expired token expires the checkpoint. A project stream that is gone (404/403)
 * needs nothing (the project's group goes with the directory); a task stream that is gone names
 * a task to read again (and delete when it 404s).
 */
export async function readFeed(api: WorkManagementApi, workspace: WmWorkspace, since: WorkManagementCheckpoint): Promise<Feed> {
  if (since.streams.workspace) {
    const read = await readStream(api, `/workspaces/${workspace.gid}/events`, {}, since.streams.workspace);
    if (read.kind !== 'ok') throw new FullRunRequired(`The workspace events sync token is no longer accepted (${read.kind})`);
    return { events: read.events, streams: { workspace: read.token, projects: {}, tasks: {} }, goneTasks: [] };
  }
  const read = (tokens: Record<string, string>) =>
    Promise.all(Object.entries(tokens).map(async ([gid, token]) => [gid, await readStream(api, '/events', { resource: gid }, token)] as const));
  const [projectReads, taskReads] = await Promise.all([read(since.streams.projects), read(since.streams.tasks)]);
  const events: WmEvent[] = [];
  const streams: WorkManagementCheckpoint['streams'] = { projects: {}, tasks: {} };
  const goneTasks: string[] = [];
  for (const [kind, reads] of [
    ['project', projectReads],
    ['task', taskReads],
  ] as const) {
    for (const [gid, r] of reads) {
      if (r.kind === 'expired') throw new FullRunRequired(`The events sync token of ${kind} ${gid} is no longer accepted`);
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

/**
 * The streams an incremental run continues with, and the projects it reads whole: new ones, and
 * (per-project streams) any without a stream so far, which get one before their tasks are read,
 * as a full run does. On per-project streams, a project the last run had and the directory no
 * longer shows (deleted, or hidden from the token) requires a full run: its tasks' events, their
 * `removed` ones among them, were on its stream, now gone, and no record says which tasks were in
 * it; a task only in it heads a project-less tree that needs a stream of its own.
 */
export async function projectStreams(
  api: WorkManagementApi,
  since: WorkManagementCheckpoint,
  dir: Directory,
  read: WorkManagementCheckpoint['streams'],
): Promise<{ streams: WorkManagementCheckpoint['streams']; newProjects: WmProject[] }> {
  const known = new Set(since.projects);
  const streams: WorkManagementCheckpoint['streams'] = { ...read, projects: { ...read.projects }, tasks: { ...read.tasks } };
  const newProjects = dir.projects.filter((p) => !known.has(p.gid) || (!streams.workspace && !(p.gid in streams.projects)));
  if (!streams.workspace) {
    const listed = new Set(dir.projects.map((p) => p.gid));
    const lost = since.projects.filter((gid) => !listed.has(gid));
    if (lost.length > 0) {
      throw new FullRunRequired(
        `${lost.length} project(s) deleted or no longer visible (${lost.slice(0, 5).join(', ')}): their tasks' events were on their streams; a full sync reads those tasks again`,
      );
    }
    Object.assign(
      streams.projects,
      await bootstrapStreams(
        api,
        newProjects.map((p) => p.gid),
      ),
    );
  }
  return { streams, newProjects };
}

/**
 * Task streams follow the roots of project-less trees (`streamRoots`): dropped when a task is gone
 * (`deleted`, vanished) or was read in this run and is no root any more (it joined a project or
 * became a subtask), started for the roots that have none yet.
 */
export async function taskStreams(
  api: WorkManagementApi,
  before: Readonly<Record<string, string>>,
  deleted: ReadonlySet<string>,
  crawler: Pick<TaskCrawler, 'vanished' | 'homes'>,
  roots: ReadonlySet<string>,
): Promise<Record<string, string>> {
  const tasks = { ...before };
  for (const gid of Object.keys(tasks)) {
    if (deleted.has(gid) || crawler.vanished.has(gid) || (crawler.homes.has(gid) && !roots.has(gid))) delete tasks[gid];
  }
  Object.assign(
    tasks,
    await bootstrapStreams(
      api,
      [...roots].filter((gid) => !(gid in tasks) && !deleted.has(gid)),
    ),
  );
  return tasks;
}
