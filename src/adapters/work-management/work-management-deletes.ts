import { fileId } from './work-management-mapping';
import { mergeAttachments } from './work-management-run-checkpoint';

/** What an incremental run learnt is gone or was read again. */
export interface RunFindings {
  /** Tasks deleted at the source, gone when read again, or gone between a listing and a read. */
  goneTasks: Iterable<string>;
  /** Attachments the events say were deleted (or removed from their task). */
  goneAttachments: Iterable<string>;
  /** Task or project gid → gids of its synced attachments, for everything read in this run. */
  read: ReadonlyMap<string, string[]>;
}

/**
 * The files an incremental run deletes, in order, and the synced attachments it knows after them
 * (`before`: the last checkpoint's). A task gone takes its page and its attachments along; an
 * attachment is deleted when its task or project was read again without it, or when an event says
 * it was deleted and this run did not read it again (one never synced, a link or an unsupported
 * type, is no file to delete). One its task or project read again still lists stays, and stays
 * known in the checkpoint, so that deleting its task later deletes it too.
 */
export function fileDeletes(before: Readonly<Record<string, string[]>>, found: RunFindings): { deletes: string[]; attachments: Map<string, string[]> } {
  const attachments = new Map(Object.entries(before));
  const deletes = new Set<string>();
  const owner = new Map<string, string>();
  for (const [parent, ids] of attachments) for (const id of ids) owner.set(id, parent);
  for (const gid of found.goneTasks) {
    deletes.add(fileId.task(gid));
    for (const id of attachments.get(gid) ?? []) deletes.add(fileId.attachment(id));
    attachments.delete(gid);
  }
  for (const [parent, ids] of found.read) {
    const now = new Set(ids);
    for (const id of attachments.get(parent) ?? []) if (!now.has(id)) deletes.add(fileId.attachment(id));
  }
  mergeAttachments(attachments, found.read);
  for (const id of found.goneAttachments) {
    const parent = owner.get(id);
    if (parent === undefined) continue; // never synced (a link, or an unsupported type)
    if (stillListed(found.read, parent, id)) continue; // kept, and known: deleted along with its task later
    const current = attachments.get(parent);
    if (current?.includes(id)) {
      const rest = current.filter((x) => x !== id);
      if (rest.length > 0) attachments.set(parent, rest);
      else attachments.delete(parent);
    }
    deletes.add(fileId.attachment(id));
  }
  return { deletes: [...deletes].sort(), attachments };
}

/** Whether the task or project `parent`, read again in this run, still lists attachment `id`. */
function stillListed(read: RunFindings['read'], parent: string, id: string): boolean {
  return read.get(parent)?.includes(id) ?? false;
}
