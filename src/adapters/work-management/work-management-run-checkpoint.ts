import type { WorkManagementCheckpoint } from './work-management-checkpoint';
import { directoryGroupIds, directoryUsers, type Directory } from './work-management-directory';
import { compareGids } from './work-management-mapping';
import type { TaskCrawler } from './work-management-tasks';

/** What a run's checkpoint is made of. */
export interface CheckpointParts {
  workspace: string;
  watermark: string;
  streams: WorkManagementCheckpoint['streams'];
  /** The directory as this run read it: its projects, users and groups are what the next run compares with. */
  dir: Directory;
  /** Task or project gid → gids of its synced attachments. */
  attachments: ReadonlyMap<string, string[]>;
  descendants: Record<string, string[]>;
  failed: Iterable<string>;
  /** Only while a full run is under way: the projects it has done. */
  projectsDone?: Iterable<string>;
}

export function checkpointOf(parts: CheckpointParts): WorkManagementCheckpoint {
  const { dir } = parts;
  return {
    version: 1,
    workspace: parts.workspace,
    watermark: parts.watermark,
    streams: parts.streams,
    projects: dir.projects.map((p) => p.gid),
    users: directoryUsers(dir).map((u) => u.nativeId),
    inactive: directoryUsers(dir)
      .filter((u) => !u.active)
      .map((u) => u.nativeId),
    groups: directoryGroupIds(dir),
    attachments: Object.fromEntries([...parts.attachments].sort(([a], [b]) => compareGids(a, b))),
    descendants: parts.descendants,
    failed: [...parts.failed].sort(compareGids),
    ...(parts.projectsDone ? { progress: { projectsDone: [...parts.projectsDone] } } : {}),
  };
}

/** Takes the attachments read in this run (`read`, task or project gid → attachment gids) into `known`: none left drops the entry. */
export function mergeAttachments(known: Map<string, string[]>, read: ReadonlyMap<string, string[]>): void {
  for (const [gid, ids] of read) {
    if (ids.length > 0) known.set(gid, ids);
    else known.delete(gid);
  }
}

/** Subtasks (at any depth) of each task with a stream of its own: as read in this run, else as before. */
export function descendantsOf(
  tasks: readonly string[],
  crawler: Pick<TaskCrawler, 'children' | 'descendants'>,
  before: Readonly<Record<string, string[]>>,
): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const gid of [...tasks].sort(compareGids)) {
    const list = crawler.children.has(gid) ? [...new Set([...crawler.descendants(gid), ...(before[gid] ?? [])])] : (before[gid] ?? []);
    if (list.length > 0) out[gid] = list.sort(compareGids);
  }
  return out;
}
