import { z } from 'zod';

/**
 * Where a run left the workspace: the events sync tokens to continue from (one for the workspace
 * stream, or one per project), the `modified_since` watermark (the run's start, less a margin for
 * clock skew), what was yielded (projects, users, groups, so those that disappear are deleted),
 * each task's synced attachments and subtasks (so a deleted task takes them along), tasks to read again, and
 * during a full run the projects already done (to resume after them).
 */
export const workManagementCheckpointSchema = z.strictObject({
  /** 2: `subtasks` (every task's) replaced `descendants` (only those of tasks with a stream); a version-1 checkpoint needs a full run. */
  version: z.literal(2),
  workspace: z.string().regex(/^\d+$/),
  watermark: z.iso.datetime(),
  streams: z.strictObject({
    /** Sync token of the workspace's events stream, when the service offers it. */
    workspace: z.string().min(1).optional(),
    /** Project gid → sync token of its events stream (when there is no workspace stream). */
    projects: z.record(z.string(), z.string().min(1)),
    /**
     * Task gid → sync token, for the root of each tree of tasks in no project (when there is no
     * workspace stream): no project stream carries the tree's changes, nor its deletion.
     */
    tasks: z.record(z.string(), z.string().min(1)),
  }),
  projects: z.array(z.string()),
  users: z.array(z.string()),
  /** Users yielded as Inactive: one who comes back needs a full run (see the README). */
  inactive: z.array(z.string()),
  groups: z.array(z.string()),
  /** Task or project gid → gids of its attachments synced as files. */
  attachments: z.record(z.string(), z.array(z.string())),
  /**
   * Task gid → gids of its subtasks, for every task synced with some. A task gone (deleted, or its
   * stream gone) takes its subtasks along, at every depth, and their deletion may reach no stream
   * this adapter reads (a task that left its last project): they are read again, and deleted when
   * gone too.
   */
  subtasks: z.record(z.string(), z.array(z.string())),
  /** Tasks that could not be read: read again by the next incremental run. */
  failed: z.array(z.string()),
  /** Only in the checkpoints a full run yields as it goes. */
  progress: z.strictObject({ projectsDone: z.array(z.string()) }).optional(),
});

export type WorkManagementCheckpoint = z.infer<typeof workManagementCheckpointSchema>;
