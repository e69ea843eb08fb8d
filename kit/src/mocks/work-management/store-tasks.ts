/** The task store: tasks and subtasks, their projects, tags, assignees and followers, their stories (comments) and attachments. */
import type { Gid, Task, Story, AttachmentKind, Attachment } from './model-types';
import type { EventChange } from './rules/events';
import { paragraphsFor } from './names';
import type { EventRecorder } from './store-events';
import { type StoreIndexes, pull, push, removeItem } from './store-indexes';

export interface NewTask {
  workspace: Gid;
  name: string;
  memberships?: Array<{ project: Gid; section?: Gid | null }>;
  parent?: Gid | null;
  assignee?: Gid | null;
  followers?: Gid[];
  createdBy?: Gid | null;
  notes?: string | null;
  createdAt?: number;
  modifiedAt?: number;
  completed?: boolean;
  completedAt?: number | null;
  dueOn?: string | null;
  startOn?: string | null;
  resourceSubtype?: Task['resourceSubtype'];
  customType?: Gid | null;
  tags?: Gid[];
  customId?: string | null;
}

export class TaskStore {
  constructor(
    private readonly indexes: StoreIndexes,
    private readonly recorder: EventRecorder,
  ) {}

  add(input: NewTask): Task {
    const ix = this.indexes;
    const at = input.createdAt ?? ix.now();
    const task: Task = {
      gid: ix.nextGid('task'),
      workspace: input.workspace,
      name: input.name,
      resourceSubtype: input.resourceSubtype ?? 'default_task',
      notes: input.notes ?? null,
      assignee: input.assignee ?? null,
      followers: [...new Set(input.followers ?? [])],
      memberships: [],
      parent: input.parent ?? null,
      createdAt: at,
      modifiedAt: input.modifiedAt ?? at,
      completed: input.completed ?? false,
      completedAt: input.completedAt ?? null,
      dueOn: input.dueOn ?? null,
      startOn: input.startOn ?? null,
      createdBy: input.createdBy ?? null,
      customFieldValues: [],
      tags: [],
      customType: input.customType ?? null,
      customId: input.customId ?? null,
    };
    ix.tasks.set(task.gid, task);
    if (task.customId) ix.taskByCustomId.set(`${task.workspace}/${task.customId}`, task.gid);
    push(ix.tasksByWorkspace, task.workspace, task.gid);
    if (task.assignee) push(ix.tasksByAssignee, `${task.assignee}/${task.workspace}`, task.gid);
    if (task.parent) push(ix.subtasksByTask, task.parent, task.gid);
    for (const tag of input.tags ?? []) this.tag(task, tag);
    const memberships = input.memberships ?? [];
    for (const m of memberships) this.linkToProject(task, m.project, m.section ?? null);
    if (this.recorder.recording) this.recordAdded(task, memberships.length === 0);
    return task;
  }

  /** A task without projects is news to its parent; one in projects, to each project. */
  private recordAdded(task: Task, orphan: boolean): void {
    const r = this.recorder;
    if (orphan) {
      const parent = task.parent ? this.indexes.tasks.get(task.parent) : undefined;
      r.record('added', r.taskRef(task), parent ? r.taskRef(parent) : null, r.taskScopes(task));
    } else {
      for (const m of task.memberships) r.record('added', r.taskRef(task), r.ref('project', m.project), r.taskScopes(task));
    }
  }

  /** Makes a task without a parent a subtask of `parent` (a duplicate's: recorded by the duplication, not here). */
  makeSubtask(task: Task, parent: Gid): void {
    task.parent = parent;
    push(this.indexes.subtasksByTask, parent, task.gid);
  }

  /**
   * Moves a task under `parent`, or to no parent (`null`), at `index` among the parent's subtasks
   * (the end when undefined); its subtasks move with it. Like a move between projects, it leaves
   * modified_at alone. Recorded as a subtask's arrival is (`recordAdded`): `removed` with the old
   * parent, visible where the task was (the old ancestors and their projects), then `added` with
   * the new parent and a `changed` of field `parent`, visible where it is now. A reorder under the
   * same parent records nothing.
   */
  setParent(task: Task, parent: Gid | null, index?: number): void {
    const ix = this.indexes;
    const r = this.recorder;
    const old = task.parent;
    const before = r.taskScopes(task);
    if (old) pull(ix.subtasksByTask, old, task.gid);
    task.parent = parent;
    if (parent) {
      const siblings = ix.subtasksByTask.get(parent) ?? [];
      siblings.splice(index ?? siblings.length, 0, task.gid);
      ix.subtasksByTask.set(parent, siblings);
    }
    if (old === parent) return;
    const ref = r.taskRef(task);
    const oldParent = old ? ix.tasks.get(old) : undefined;
    const newParent = parent ? ix.tasks.get(parent) : undefined;
    if (oldParent) r.record('removed', ref, r.taskRef(oldParent), before);
    if (newParent) r.record('added', ref, r.taskRef(newParent), r.taskScopes(task));
    r.record('changed', ref, null, r.taskScopes(task), { field: 'parent', action: 'changed', new_value: newParent ? r.taskRef(newParent) : null });
  }

  /** Tags a task (once). */
  tag(task: Task, tag: Gid): void {
    if (task.tags.includes(tag)) return;
    task.tags.push(tag);
    push(this.indexes.tasksByTag, tag, task.gid);
  }

  /** Projects of a task: its own memberships, in order. */
  projectsOf(task: Task): Gid[] {
    return task.memberships.map((m) => m.project);
  }

  /** Puts a task in a project (at the end, or in a section); moving does not touch modified_at. */
  addToProject(task: Task, project: Gid, section: Gid | null = null): void {
    const r = this.recorder;
    const existing = task.memberships.find((m) => m.project === project);
    if (existing) {
      if (section && existing.section !== section) {
        if (existing.section) pull(this.indexes.tasksBySection, existing.section, task.gid);
        existing.section = section;
        push(this.indexes.tasksBySection, section, task.gid);
        const change: EventChange = { field: 'memberships', action: 'changed', new_value: { project: { gid: project }, section: { gid: section } } };
        r.record('changed', r.taskRef(task), null, r.taskScopes(task), change);
      }
      return;
    }
    this.linkToProject(task, project, section);
    r.record('added', r.taskRef(task), r.ref('project', project), r.taskScopes(task));
  }

  removeFromProject(task: Task, project: Gid): boolean {
    const m = task.memberships.find((x) => x.project === project);
    if (!m) return false;
    const scopes = this.recorder.taskScopes(task);
    task.memberships = task.memberships.filter((x) => x !== m);
    pull(this.indexes.tasksByProject, project, task.gid);
    if (m.section) pull(this.indexes.tasksBySection, m.section, task.gid);
    this.recorder.record('removed', this.recorder.taskRef(task), this.recorder.ref('project', project), scopes);
    return true;
  }

  private linkToProject(task: Task, project: Gid, section: Gid | null): void {
    const sec = section ?? this.indexes.sectionsByProject.get(project)?.[0] ?? null;
    task.memberships.push({ project, section: sec });
    push(this.indexes.tasksByProject, project, task.gid);
    if (sec) push(this.indexes.tasksBySection, sec, task.gid);
  }

  setAssignee(task: Task, assignee: Gid | null): void {
    if (task.assignee === assignee) return;
    if (task.assignee) pull(this.indexes.tasksByAssignee, `${task.assignee}/${task.workspace}`, task.gid);
    task.assignee = assignee;
    if (assignee) push(this.indexes.tasksByAssignee, `${assignee}/${task.workspace}`, task.gid);
    this.touch(task, { field: 'assignee', action: 'changed', new_value: assignee ? this.recorder.ref('user', assignee) : null });
  }

  addFollowers(task: Task, users: Gid[]): void {
    for (const user of users) {
      if (task.followers.includes(user)) continue;
      task.followers.push(user);
      this.touch(task, { field: 'followers', action: 'added', added_value: this.recorder.ref('user', user) });
    }
  }

  removeFollowers(task: Task, users: Gid[]): void {
    for (const user of users) {
      if (!removeItem(task.followers, user)) continue;
      this.touch(task, { field: 'followers', action: 'removed', removed_value: this.recorder.ref('user', user) });
    }
  }

  /** A property change: bumps modified_at and records a `changed` event. */
  touch(task: Task, change: EventChange): void {
    task.modifiedAt = Math.max(this.indexes.now(), task.modifiedAt);
    this.recorder.record('changed', this.recorder.taskRef(task), null, this.recorder.taskScopes(task), change);
  }

  /** Deletes a task with its subtasks, stories and attachments. */
  delete(task: Task): void {
    const ix = this.indexes;
    for (const sub of ix.list(ix.subtasksByTask.get(task.gid), ix.tasks)) this.delete(sub);
    const scopes = this.recorder.taskScopes(task);
    for (const m of task.memberships) {
      pull(ix.tasksByProject, m.project, task.gid);
      if (m.section) pull(ix.tasksBySection, m.section, task.gid);
    }
    pull(ix.tasksByWorkspace, task.workspace, task.gid);
    if (task.assignee) pull(ix.tasksByAssignee, `${task.assignee}/${task.workspace}`, task.gid);
    if (task.parent) pull(ix.subtasksByTask, task.parent, task.gid);
    for (const tag of task.tags) pull(ix.tasksByTag, tag, task.gid);
    for (const id of ix.storiesByTask.get(task.gid) ?? []) ix.stories.delete(id);
    for (const id of ix.attachmentsByParent.get(task.gid) ?? []) ix.attachments.delete(id);
    ix.storiesByTask.delete(task.gid);
    ix.attachmentsByParent.delete(task.gid);
    ix.subtasksByTask.delete(task.gid);
    ix.tasks.delete(task.gid);
    this.recorder.record('deleted', this.recorder.taskRef(task), null, scopes);
  }

  /** The task's notes: its own, or paragraphs derived from the seed. */
  notes(task: Task): string {
    return task.notes ?? paragraphsFor(this.indexes.seed, task.gid, 2).join('\n\n');
  }

  storyText(story: Story): string {
    if (story.text !== null) return story.text;
    return paragraphsFor(this.indexes.seed, story.gid, 1)[0] ?? '';
  }

  addStory(input: {
    target: Gid;
    type?: Story['type'];
    resourceSubtype?: string;
    text?: string | null;
    createdBy?: Gid | null;
    createdAt?: number;
    source?: Story['source'];
    isPinned?: boolean;
  }): Story {
    const ix = this.indexes;
    const story: Story = {
      gid: ix.nextGid('story'),
      target: input.target,
      type: input.type ?? 'comment',
      resourceSubtype: input.resourceSubtype ?? ((input.type ?? 'comment') === 'comment' ? 'comment_added' : 'added_to_project'),
      text: input.text ?? null,
      createdBy: input.createdBy ?? null,
      createdAt: input.createdAt ?? ix.now(),
      isEdited: false,
      isPinned: input.isPinned ?? false,
      source: input.source ?? 'web',
    };
    ix.stories.set(story.gid, story);
    push(ix.storiesByTask, story.target, story.gid);
    const task = ix.tasks.get(story.target);
    if (task && this.recorder.recording) {
      task.modifiedAt = Math.max(ix.now(), task.modifiedAt);
      const r = this.recorder;
      r.record('added', r.ref('story', story.gid, undefined, story.resourceSubtype), r.taskRef(task), r.taskScopes(task), undefined, story.createdBy);
    }
    return story;
  }

  /** Comment edits leave the task's modified_at alone (as the real service does) but are recorded. */
  editStory(story: Story, text: string): void {
    story.text = text;
    story.isEdited = true;
    const task = this.indexes.tasks.get(story.target);
    const r = this.recorder;
    const change: EventChange = { field: 'text', action: 'changed', new_value: text };
    const ref = r.ref('story', story.gid, undefined, story.resourceSubtype);
    r.record('changed', ref, task ? r.taskRef(task) : null, task ? r.taskScopes(task) : [story.target], change);
  }

  deleteStory(story: Story): void {
    this.indexes.stories.delete(story.gid);
    pull(this.indexes.storiesByTask, story.target, story.gid);
    const task = this.indexes.tasks.get(story.target);
    if (task) task.modifiedAt = Math.max(this.indexes.now(), task.modifiedAt);
    const r = this.recorder;
    r.record('deleted', r.ref('story', story.gid, undefined, story.resourceSubtype), task ? r.taskRef(task) : null, task ? r.taskScopes(task) : [story.target]);
  }

  addAttachment(input: {
    parent: Gid;
    name: string;
    host?: Attachment['host'];
    kind?: AttachmentKind | null;
    createdAt?: number;
    createdBy?: Gid | null;
  }): Attachment {
    const ix = this.indexes;
    const parentType = ix.kindOf(input.parent) === 'project' ? 'project' : 'task';
    const a: Attachment = {
      gid: ix.nextGid('attachment'),
      parent: input.parent,
      parentType,
      name: input.name,
      host: input.host ?? 'asana',
      kind: input.kind ?? null,
      createdAt: input.createdAt ?? ix.now(),
      createdBy: input.createdBy ?? null,
      size: null,
    };
    ix.attachments.set(a.gid, a);
    push(ix.attachmentsByParent, a.parent, a.gid);
    if (this.recorder.recording) this.recordAttachment('added', a);
    return a;
  }

  deleteAttachment(a: Attachment): void {
    this.indexes.attachments.delete(a.gid);
    pull(this.indexes.attachmentsByParent, a.parent, a.gid);
    this.recordAttachment('deleted', a);
  }

  /** An attachment change touches its task (if on a task) and is news to the task or the project. */
  private recordAttachment(action: 'added' | 'deleted', a: Attachment): void {
    const task = this.indexes.tasks.get(a.parent);
    if (task) task.modifiedAt = Math.max(this.indexes.now(), task.modifiedAt);
    const r = this.recorder;
    const ref = r.ref('attachment', a.gid, a.name);
    if (task) r.record(action, ref, r.taskRef(task), r.taskScopes(task));
    else r.recordUnder(action, ref, 'project', a.parent);
  }
}
