import type { WmTaskRecord } from './work-management-records';

/** What a task's file depends on in its record, to tell whether the record changed between two reads. */
export function recordStamp(task: WmTaskRecord): string {
  const gids = (refs: ReadonlyArray<{ gid: string }> | undefined) => (refs ?? []).map((r) => r.gid).sort();
  return JSON.stringify([
    task.name,
    task.notes ?? null,
    task.completed ?? null,
    task.due_on ?? null,
    task.modified_at ?? null,
    task.assignee?.gid ?? null,
    gids(task.followers),
    gids(task.projects),
    task.parent?.gid ?? null,
    task.num_subtasks ?? null,
    (task.custom_fields ?? []).map((f) => [f.gid, f.display_value, f.enabled ?? null]),
  ]);
}
