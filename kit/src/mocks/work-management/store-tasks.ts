/** The store's task builders: tasks and subtasks, their projects, tags, assignees and followers, stories and attachments (events recorded once recording is on). */
import type { Gid, Task, Story, AttachmentKind, Attachment } from './model-types';
import { pull, push, removeItem } from './store-base';
import type { EventChange } from './rules/events';
import { ProjectStore } from './store-projects';

export class TaskStore extends ProjectStore {
  addTask(input: {
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
  }): Task {
    const at = input.createdAt ?? this.now();
    const task: Task = {
      gid: this.nextGid('task'),
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
    };
    this.tasks.set(task.gid, task);
    push(this.tasksByWorkspace, task.workspace, task.gid);
    if (task.assignee) push(this.tasksByAssignee, `${task.assignee}/${task.workspace}`, task.gid);
    if (task.parent) push(this.subtasksByTask, task.parent, task.gid);
    for (const tag of input.tags ?? []) this.addTaskTag(task, tag);
    const memberships = input.memberships ?? [];
    for (const m of memberships) this.linkTaskToProject(task, m.project, m.section ?? null);
    if (!this.recording) return task;
    if (memberships.length === 0) {
      const parent = task.parent ? this.tasks.get(task.parent) : undefined;
      this.record('added', this.taskRef(task), parent ? this.taskRef(parent) : null, this.taskScopes(task));
    } else {
      for (const m of task.memberships) this.record('added', this.taskRef(task), this.ref('project', m.project), this.taskScopes(task));
    }
    return task;
  }

  addTaskTag(task: Task, tag: Gid): void {
    if (task.tags.includes(tag)) return;
    task.tags.push(tag);
    push(this.tasksByTag, tag, task.gid);
  }

  /** Puts a task in a project (at the end, or in a section); moving does not touch modified_at. */
  addTaskToProject(task: Task, project: Gid, section: Gid | null = null): void {
    const existing = task.memberships.find((m) => m.project === project);
    if (existing) {
      if (section && existing.section !== section) {
        if (existing.section) pull(this.tasksBySection, existing.section, task.gid);
        existing.section = section;
        push(this.tasksBySection, section, task.gid);
        this.record('changed', this.taskRef(task), null, this.taskScopes(task), { field: 'memberships', action: 'changed', new_value: { project: { gid: project }, section: { gid: section } } });
      }
      return;
    }
    this.linkTaskToProject(task, project, section);
    this.record('added', this.taskRef(task), this.ref('project', project), this.taskScopes(task));
  }

  removeTaskFromProject(task: Task, project: Gid): boolean {
    const m = task.memberships.find((x) => x.project === project);
    if (!m) return false;
    const scopes = this.taskScopes(task);
    task.memberships = task.memberships.filter((x) => x !== m);
    pull(this.tasksByProject, project, task.gid);
    if (m.section) pull(this.tasksBySection, m.section, task.gid);
    this.record('removed', this.taskRef(task), this.ref('project', project), scopes);
    return true;
  }

  protected linkTaskToProject(task: Task, project: Gid, section: Gid | null): void {
    const sec = section ?? this.sectionsByProject.get(project)?.[0] ?? null;
    task.memberships.push({ project, section: sec });
    push(this.tasksByProject, project, task.gid);
    if (sec) push(this.tasksBySection, sec, task.gid);
  }

  setTaskAssignee(task: Task, assignee: Gid | null): void {
    if (task.assignee === assignee) return;
    if (task.assignee) pull(this.tasksByAssignee, `${task.assignee}/${task.workspace}`, task.gid);
    task.assignee = assignee;
    if (assignee) push(this.tasksByAssignee, `${assignee}/${task.workspace}`, task.gid);
    this.touchTask(task, { field: 'assignee', action: 'changed', new_value: assignee ? this.ref('user', assignee) : null });
  }

  addTaskFollowers(task: Task, users: Gid[]): void {
    for (const user of users) {
      if (task.followers.includes(user)) continue;
      task.followers.push(user);
      this.touchTask(task, { field: 'followers', action: 'added', added_value: this.ref('user', user) });
    }
  }

  removeTaskFollowers(task: Task, users: Gid[]): void {
    for (const user of users) {
      if (!removeItem(task.followers, user)) continue;
      this.touchTask(task, { field: 'followers', action: 'removed', removed_value: this.ref('user', user) });
    }
  }

  /** A property change: bumps modified_at and records a `changed` event. */
  touchTask(task: Task, change: EventChange): void {
    task.modifiedAt = Math.max(this.now(), task.modifiedAt);
    this.record('changed', this.taskRef(task), null, this.taskScopes(task), change);
  }

  /** Deletes a task with its subtasks, stories and attachments. */
  deleteTask(task: Task): void {
    for (const sub of this.list(this.subtasksByTask.get(task.gid), this.tasks)) this.deleteTask(sub);
    const scopes = this.taskScopes(task);
    for (const m of task.memberships) {
      pull(this.tasksByProject, m.project, task.gid);
      if (m.section) pull(this.tasksBySection, m.section, task.gid);
    }
    pull(this.tasksByWorkspace, task.workspace, task.gid);
    if (task.assignee) pull(this.tasksByAssignee, `${task.assignee}/${task.workspace}`, task.gid);
    if (task.parent) pull(this.subtasksByTask, task.parent, task.gid);
    for (const tag of task.tags) pull(this.tasksByTag, tag, task.gid);
    for (const id of this.storiesByTask.get(task.gid) ?? []) this.stories.delete(id);
    for (const id of this.attachmentsByParent.get(task.gid) ?? []) this.attachments.delete(id);
    this.storiesByTask.delete(task.gid);
    this.attachmentsByParent.delete(task.gid);
    this.subtasksByTask.delete(task.gid);
    this.tasks.delete(task.gid);
    this.record('deleted', this.taskRef(task), null, scopes);
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
    const story: Story = {
      gid: this.nextGid('story'),
      target: input.target,
      type: input.type ?? 'comment',
      resourceSubtype: input.resourceSubtype ?? ((input.type ?? 'comment') === 'comment' ? 'comment_added' : 'added_to_project'),
      text: input.text ?? null,
      createdBy: input.createdBy ?? null,
      createdAt: input.createdAt ?? this.now(),
      isEdited: false,
      isPinned: input.isPinned ?? false,
      source: input.source ?? 'web',
    };
    this.stories.set(story.gid, story);
    push(this.storiesByTask, story.target, story.gid);
    const task = this.tasks.get(story.target);
    if (task && this.recording) {
      task.modifiedAt = Math.max(this.now(), task.modifiedAt);
      this.record('added', this.ref('story', story.gid, undefined, story.resourceSubtype), this.taskRef(task), this.taskScopes(task), undefined, story.createdBy);
    }
    return story;
  }

  /** Comment edits leave the task's modified_at alone (as the real service does) but are recorded. */
  editStory(story: Story, text: string): void {
    story.text = text;
    story.isEdited = true;
    const task = this.tasks.get(story.target);
    this.record('changed', this.ref('story', story.gid, undefined, story.resourceSubtype), task ? this.taskRef(task) : null, task ? this.taskScopes(task) : [story.target], { field: 'text', action: 'changed', new_value: text });
  }

  deleteStory(story: Story): void {
    this.stories.delete(story.gid);
    pull(this.storiesByTask, story.target, story.gid);
    const task = this.tasks.get(story.target);
    if (task) task.modifiedAt = Math.max(this.now(), task.modifiedAt);
    this.record('deleted', this.ref('story', story.gid, undefined, story.resourceSubtype), task ? this.taskRef(task) : null, task ? this.taskScopes(task) : [story.target]);
  }

  addAttachment(input: { parent: Gid; name: string; host?: Attachment['host']; kind?: AttachmentKind | null; createdAt?: number; createdBy?: Gid | null }): Attachment {
    const parentType = this.kindOf(input.parent) === 'project' ? 'project' : 'task';
    const a: Attachment = {
      gid: this.nextGid('attachment'),
      parent: input.parent,
      parentType,
      name: input.name,
      host: input.host ?? 'asana',
      kind: input.kind ?? null,
      createdAt: input.createdAt ?? this.now(),
      createdBy: input.createdBy ?? null,
      size: null,
    };
    this.attachments.set(a.gid, a);
    push(this.attachmentsByParent, a.parent, a.gid);
    if (this.recording) {
      const task = this.tasks.get(a.parent);
      if (task) task.modifiedAt = Math.max(this.now(), task.modifiedAt);
      this.record('added', this.ref('attachment', a.gid, a.name), task ? this.taskRef(task) : this.ref('project', a.parent), task ? this.taskScopes(task) : this.parentScopes(a.parent));
    }
    return a;
  }

  deleteAttachment(a: Attachment): void {
    this.attachments.delete(a.gid);
    pull(this.attachmentsByParent, a.parent, a.gid);
    const task = this.tasks.get(a.parent);
    if (task) task.modifiedAt = Math.max(this.now(), task.modifiedAt);
    this.record('deleted', this.ref('attachment', a.gid, a.name), task ? this.taskRef(task) : this.ref('project', a.parent), task ? this.taskScopes(task) : this.parentScopes(a.parent));
  }
}
