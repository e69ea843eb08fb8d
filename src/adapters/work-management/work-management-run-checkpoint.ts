import type { WorkManagementCheckpoint } from './work-management-checkpoint';
import { directoryGroupIds, directoryUsers, type Directory } from './work-management-directory';
import { compareGids } from './work-management-mapping';

/** What a run's checkpoint is made of. */
export interface CheckpointParts {
  workspace: string;
  watermark: string;
  streams: WorkManagementCheckpoint['streams'];
  /** The directory as this run read it: its projects, users and groups are what the next run compares with. */
  dir: Directory;
  /** Task or project gid → gids of its synced attachments. */
  attachments: ReadonlyMap<string, string[]>;
  subtasks: Record<string, string[]>;
  failed: Iterable<string>;
  /** Only while a full run is under way: the projects it has done. */
  projectsDone?: Iterable<string>;
}

export function checkpointOf(parts: CheckpointParts): WorkManagementCheckpoint {
  const { dir } = parts;
  return {
    version: 2,
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
    subtasks: parts.subtasks,
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

/**
 * Every task's subtasks after a run: those known before, replaced by what the run read (`read`:
 * a task read without subtasks drops out), less the tasks gone, in gid order.
 */
export function subtasksAfter(
  before: Readonly<Record<string, string[]>>,
  read: ReadonlyMap<string, readonly string[]>,
  gone: Iterable<string>,
): Record<string, string[]> {
  const map = new Map(Object.entries(before));
  for (const [gid, children] of read) {
    if (children.length > 0) map.set(gid, [...children]);
    else map.delete(gid);
  }
  const goneSet = new Set(gone);
  for (const gid of goneSet) map.delete(gid);
  const out: Record<string, string[]> = {};
  for (const [gid, children] of [...map].sort(([a], [b]) => compareGids(a, b))) {
    const left = goneSet.size === 0 ? children : children.filter((c) => !goneSet.has(c));
    if (left.length > 0) out[gid] = [...left].sort(compareGids);
  }
  return out;
}

/** The subtasks of `gid` at any depth in a map of direct subtasks (cycle-safe). */
export function descendantsIn(subtasks: ReadonlyMap<string, readonly string[]>, gid: string): string[] {
  const childrenOf = (g: string) => subtasks.get(g) ?? [];
  const out: string[] = [];
  const seen = new Set([gid]);
  const stack = [...childrenOf(gid)];
  while (stack.length > 0) {
    const next = stack.pop() as string;
    if (seen.has(next)) continue;
    seen.add(next);
    out.push(next);
    stack.push(...childrenOf(next));
  }
  return out;
}
