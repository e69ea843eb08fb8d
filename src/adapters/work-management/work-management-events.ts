import { expectOk, type WorkManagementApi } from './work-management-api';
import type { WmEvent } from './work-management-records';

/** A stream that keeps answering `has_more` this many times is not converging: stop and fail. */
const MAX_READS_PER_STREAM = 10_000;

export type StreamRead =
  | { kind: 'ok'; events: WmEvent[]; token: string }
  /** The token is invalid or too old (412): the data must be crawled again. */
  | { kind: 'expired' }
  /** The stream's resource is gone or no longer visible (404/403). */
  | { kind: 'gone' };

function syncOf(body: unknown): string | undefined {
  const sync = (body as { sync?: unknown } | undefined)?.sync;
  return typeof sync === 'string' && sync !== '' ? sync : undefined;
}

/**
 * A fresh sync token for a stream: the first request carries none and is answered 412 with the
 * token in `sync` (reference §7). `undefined` when the stream is not offered (402/403/404/400:
 * workspace streams need an Enterprise+ service account); other failures throw.
 */
export async function bootstrapStream(api: WorkManagementApi, path: string, query: Record<string, string> = {}): Promise<string | undefined> {
  const answer = await api.answer(path, query);
  const sync = syncOf(answer.body);
  if ((answer.status === 412 || answer.status === 200) && sync) return sync;
  if ([400, 402, 403, 404].includes(answer.status)) return undefined;
  expectOk(answer, path);
  return undefined;
}

/** Every event since `token`: calls again at once while `has_more`, always with the latest token. */
export async function readStream(api: WorkManagementApi, path: string, query: Record<string, string>, token: string): Promise<StreamRead> {
  const events: WmEvent[] = [];
  let sync = token;
  for (let read = 0; read < MAX_READS_PER_STREAM; read += 1) {
    const answer = await api.answer(path, { ...query, sync });
    if (answer.status === 412) return { kind: 'expired' };
    if (answer.status === 404 || answer.status === 403) return { kind: 'gone' };
    const body = expectOk<{ data?: WmEvent[]; sync?: string; has_more?: boolean }>(answer, path);
    if (Array.isArray(body.data)) events.push(...body.data);
    sync = syncOf(body) ?? sync;
    if (body.has_more !== true) return { kind: 'ok', events, token: sync };
  }
  return { kind: 'expired' };
}

/** What a run must read again or delete, from the events since the last one. */
export interface ChangePlan {
  /** Tasks to read again (changed, added, moved, commented on, attachments changed, subtasks added). */
  reread: Set<string>;
  /** Tasks deleted at the source. */
  deleted: Set<string>;
  /**
   * Tasks that left a project or their parent (`removed`): their trees may have been on no stream
   * for a while (a task that left its last project, then joined another tree), so they are read again.
   */
  left: Set<string>;
  /** Attachments deleted at the source. */
  deletedAttachments: Set<string>;
  /** Projects whose own attachments changed. */
  projectAttachments: Set<string>;
  /** Projects renamed: their tasks' pages name them, so those are rendered again. */
  renamedProjects: Set<string>;
}

/**
 * Reads the events of one or more streams into a plan. Directory events (workspace, team and
 * project memberships, privacy) need nothing here: every incremental run reads the directory
 * again, and task access lists refer to project groups, so a membership change is a group change.
 */
export function planChanges(events: readonly WmEvent[]): ChangePlan {
  const plan: ChangePlan = {
    reread: new Set(),
    deleted: new Set(),
    left: new Set(),
    deletedAttachments: new Set(),
    projectAttachments: new Set(),
    renamedProjects: new Set(),
  };
  for (const e of events) {
    const type = e.resource?.resource_type;
    const parentTask = e.parent?.resource_type === 'task' ? e.parent.gid : undefined;
    if (type === 'task') {
      if (e.action === 'deleted') plan.deleted.add(e.resource.gid);
      else {
        plan.reread.add(e.resource.gid);
        if (e.action === 'undeleted') plan.deleted.delete(e.resource.gid); // restored from the trash
      }
      if (e.action === 'removed') plan.left.add(e.resource.gid);
      // A subtask added to or removed from a task changes the parent's list of subtasks.
      if (parentTask && (e.action === 'added' || e.action === 'removed')) plan.reread.add(parentTask);
    } else if (type === 'story') {
      // Comments added, edited or deleted: the task's page shows them.
      if (parentTask) plan.reread.add(parentTask);
    } else if (type === 'attachment') {
      if (e.action === 'deleted' || e.action === 'removed') plan.deletedAttachments.add(e.resource.gid);
      if (parentTask) plan.reread.add(parentTask);
      else if (e.parent?.resource_type === 'project') plan.projectAttachments.add(e.parent.gid);
    } else if (type === 'project' && e.action === 'changed' && e.change?.field === 'name') {
      plan.renamedProjects.add(e.resource.gid);
    }
  }
  for (const gid of plan.deleted) {
    plan.reread.delete(gid);
    plan.left.delete(gid);
  }
  return plan;
}
