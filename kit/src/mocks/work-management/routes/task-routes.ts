/**
 * Tasks, subtasks, their projects, followers and tags, moving a task under another (`setParent`),
 * and workspace task search (reference §5.9–5.13). Task listings take `completed_since`,
 * `modified_since` and `custom_type`. Stories, tags and attachments have their own route files.
 */
import { badRequest, cannotWrite, missingInput } from '../api/api-error';
import { bodyData, gidList, ok, queryBool, queryTime, type ApiRequest, type ApiResponse, type Route } from '../api/route-table';
import { nodeMaker, renderMany } from '../api/representations';
import type { MockContext } from '../mock-context';
import type { Gid, Task } from '../model';
import { applyCustomFieldChanges, planCustomFieldChanges, setTaskCustomFields } from '../rules/custom-fields';
import { customTypeFilter } from '../rules/custom-types';
import { compareGids } from '../visibility-oracle';
import { assertInWorkspace, assertVisible, isServiceAccount, lookup, requireString, requireWorkspace, resolveUser } from './route-helpers';
import { act, changed, created, getOne } from './route-factories';
import { authorOf, taskList, taskParam, visibleTask } from './task-finders';

function userIn(ctx: MockContext, workspace: Gid, raw: unknown, field: string, req: ApiRequest): Gid | null {
  if (raw === null) return null;
  if (typeof raw !== 'string') throw badRequest(`${field}: Not a user gid`);
  const user = resolveUser(req, ctx, raw, field);
  if (!ctx.store.people.workspaceMembership(user.gid, workspace)) throw badRequest(`${field}: User ${user.gid} is not in this workspace`);
  return user.gid;
}

function dateField(data: Record<string, unknown>, field: string): string | null | undefined {
  const v = data[field];
  if (v === undefined) return undefined;
  if (v === null) return null;
  if (typeof v !== 'string' || !/^\d{4}-\d{2}-\d{2}$/.test(v)) throw badRequest(`${field}: Not a date: ${String(v)}`);
  return v;
}

function createTask(req: ApiRequest, ctx: MockContext, data: Record<string, unknown>, parentGid?: Gid): Task {
  const s = ctx.store;
  if (data.due_on !== undefined && data.due_at !== undefined) throw badRequest('You may only provide one of due_on or due_at!');
  const memberships: Array<{ project: Gid; section: Gid | null }> = [];
  if (Array.isArray(data.memberships)) {
    for (const m of data.memberships as Array<Record<string, unknown>>) {
      const project = lookup(s.indexes.projects, 'memberships.project', String(m.project ?? ''));
      const section = m.section ? lookup(s.indexes.sections, 'memberships.section', String(m.section)) : undefined;
      if (section && section.project !== project.gid) throw badRequest('memberships.section: The section is not in that project');
      memberships.push({ project: project.gid, section: section?.gid ?? null });
    }
  }
  for (const p of gidList(data.projects, 'projects')) {
    const project = lookup(s.indexes.projects, 'projects', p);
    if (!memberships.some((m) => m.project === project.gid)) memberships.push({ project: project.gid, section: null });
  }
  const parent = parentGid ?? (typeof data.parent === 'string' ? data.parent : undefined);
  const parentTask = parent ? visibleTask(req, ctx, parent, 'parent') : undefined;
  const workspaceGid =
    (typeof data.workspace === 'string' ? data.workspace : undefined) ??
    parentTask?.workspace ??
    (memberships[0] ? s.indexes.projects.get(memberships[0].project)?.workspace : undefined);
  if (!workspaceGid) throw missingInput('workspace');
  const workspace = requireWorkspace(ctx, workspaceGid);
  assertInWorkspace(req, ctx, workspace.gid);
  for (const m of memberships)
    if (s.indexes.projects.get(m.project)?.workspace !== workspace.gid) throw badRequest('projects: A task and its projects must be in the same workspace');
  const name = typeof data.name === 'string' ? data.name : '';
  const followers = gidList(data.followers, 'followers').map((f) => userIn(ctx, workspace.gid, f, 'followers', req) as Gid);
  const creator = authorOf(req);
  const subtype = data.resource_subtype;
  if (subtype !== undefined && subtype !== 'default_task' && subtype !== 'milestone' && subtype !== 'approval')
    throw badRequest('resource_subtype: must be default_task, milestone or approval');
  const customType = customTypeOf(ctx, data.custom_type);
  const fieldChanges = planCustomFieldChanges(s, { workspace: workspace.gid, memberships, customFieldValues: [] }, data.custom_fields);
  const tags = gidList(data.tags, 'tags').map((tag) => lookup(s.indexes.tags, 'tags', tag).gid);
  const task = s.tasks.add({
    workspace: workspace.gid,
    name,
    notes: typeof data.notes === 'string' ? data.notes : '',
    memberships,
    parent: parentTask?.gid ?? null,
    assignee: data.assignee === undefined ? null : userIn(ctx, workspace.gid, data.assignee, 'assignee', req),
    followers: [...new Set([...(creator ? [creator] : []), ...followers])],
    createdBy: creator,
    completed: data.completed === true,
    completedAt: data.completed === true ? s.indexes.now() : null,
    dueOn: dateField(data, 'due_on') ?? null,
    startOn: dateField(data, 'start_on') ?? null,
    resourceSubtype: (subtype as Task['resourceSubtype'] | undefined) ?? 'default_task',
    customType: customType ?? null,
  });
  for (const tag of tags) s.tasks.tag(task, tag);
  // Values set at creation are part of the `added` event, not separate changes.
  s.recorder.silently(() => applyCustomFieldChanges(s, task, fieldChanges));
  return task;
}

function customTypeOf(ctx: MockContext, raw: unknown): Gid | null | undefined {
  if (raw === undefined) return undefined;
  if (raw === null || raw === '') return null;
  return lookup(ctx.store.indexes.customTypes, 'custom_type', String(raw)).gid;
}

function updateTask(req: ApiRequest, ctx: MockContext, task: Task, data: Record<string, unknown>): void {
  const s = ctx.store;
  for (const field of ['projects', 'memberships', 'tags', 'followers', 'workspace', 'parent'] as const) if (field in data) throw cannotWrite(field);
  if (data.due_on !== undefined && data.due_at !== undefined) throw badRequest('You may only provide one of due_on or due_at!');
  const assignee = data.assignee === undefined ? undefined : userIn(ctx, task.workspace, data.assignee, 'assignee', req);
  const dueOn = dateField(data, 'due_on');
  const startOn = dateField(data, 'start_on');
  const customType = customTypeOf(ctx, data.custom_type);
  if (data.name !== undefined && typeof data.name !== 'string') throw badRequest('name: Not a string');
  if (data.notes !== undefined && typeof data.notes !== 'string') throw badRequest('notes: Not a string');
  if (data.completed !== undefined && typeof data.completed !== 'boolean') throw badRequest('completed: Not a boolean');
  // Custom fields first: they validate everything before changing anything.
  setTaskCustomFields(s, task, data.custom_fields);
  if (typeof data.name === 'string' && data.name !== task.name) {
    task.name = data.name;
    s.tasks.touch(task, { field: 'name', action: 'changed', new_value: data.name });
  }
  if (typeof data.notes === 'string' && data.notes !== s.tasks.notes(task)) {
    task.notes = data.notes;
    s.tasks.touch(task, { field: 'notes', action: 'changed', new_value: data.notes });
  }
  if (typeof data.completed === 'boolean' && data.completed !== task.completed) {
    task.completed = data.completed;
    task.completedAt = data.completed ? s.indexes.now() : null;
    s.tasks.touch(task, { field: 'completed', action: 'changed', new_value: data.completed });
  }
  if (assignee !== undefined) s.tasks.setAssignee(task, assignee);
  if (dueOn !== undefined && dueOn !== task.dueOn) {
    task.dueOn = dueOn;
    s.tasks.touch(task, { field: 'due_on', action: 'changed', new_value: dueOn });
  }
  if (startOn !== undefined && startOn !== task.startOn) {
    task.startOn = startOn;
    s.tasks.touch(task, { field: 'start_on', action: 'changed', new_value: startOn });
  }
  if (customType !== undefined && customType !== task.customType) {
    task.customType = customType;
    s.tasks.touch(task, { field: 'custom_type', action: 'changed', new_value: customType });
  }
}

/** Workspace task search: no offset pagination; sort and filter by time to walk everything. */
function searchTasks(req: ApiRequest, ctx: MockContext): ApiResponse {
  const s = ctx.store;
  const ws = requireWorkspace(ctx, req.params.workspace_gid);
  assertInWorkspace(req, ctx, ws.gid);
  const q = req.query;
  const limitRaw = q.limit ?? '100';
  const limit = Number(limitRaw);
  if (!/^\d+$/.test(limitRaw) || limit < 1 || limit > 100) throw badRequest('limit: Must be an integer between 1 and 100');
  const list = (k: string): string[] | undefined =>
    q[k] === undefined
      ? undefined
      : (q[k] as string)
          .split(',')
          .map((x) => x.trim())
          .filter(Boolean);
  const time = (k: string): number | undefined => queryTime(req, k);
  const text = q.text?.toLowerCase();
  const assigneeAny = list('assignee.any')?.map((u) => (u === 'me' ? req.caller.user.gid : u));
  const projectsAny = list('projects.any');
  const projectsNot = list('projects.not');
  const sectionsAny = list('sections.any');
  const tagsAny = list('tags.any');
  const followersAny = list('followers.any');
  const isSubtask = queryBool(req, 'is_subtask');
  const completed = queryBool(req, 'completed');
  const hasProject = queryBool(req, 'has_project');
  const createdAfter = time('created_at.after');
  const createdBefore = time('created_at.before');
  const modifiedAfter = time('modified_at.after');
  const modifiedBefore = time('modified_at.before');
  const byType = customTypeFilter(s, q.custom_type);
  const sortBy = q.sort_by ?? 'modified_at';
  if (!['created_at', 'modified_at', 'due_date', 'completed_at', 'likes'].includes(sortBy))
    throw badRequest('sort_by: must be one of due_date, created_at, completed_at, likes, modified_at');
  const ascending = queryBool(req, 'sort_ascending') ?? false;
  const visible = isServiceAccount(req) ? undefined : req.caller.user.gid;
  const matches = (t: Task): boolean => {
    if (text && !t.name.toLowerCase().includes(text) && !s.tasks.notes(t).toLowerCase().includes(text)) return false;
    if (q.resource_subtype && t.resourceSubtype !== q.resource_subtype) return false;
    if (assigneeAny && (!t.assignee || !assigneeAny.includes(t.assignee))) return false;
    if (projectsAny && !t.memberships.some((m) => projectsAny.includes(m.project))) return false;
    if (projectsNot && t.memberships.some((m) => projectsNot.includes(m.project))) return false;
    if (sectionsAny && !t.memberships.some((m) => m.section !== null && sectionsAny.includes(m.section))) return false;
    if (tagsAny && !t.tags.some((g) => tagsAny.includes(g))) return false;
    if (followersAny && !t.followers.some((g) => followersAny.includes(g))) return false;
    if (isSubtask !== undefined && (t.parent !== null) !== isSubtask) return false;
    if (completed !== undefined && t.completed !== completed) return false;
    if (hasProject !== undefined && t.memberships.length > 0 !== hasProject) return false;
    if (createdAfter !== undefined && t.createdAt <= createdAfter) return false;
    if (createdBefore !== undefined && t.createdAt >= createdBefore) return false;
    if (modifiedAfter !== undefined && t.modifiedAt <= modifiedAfter) return false;
    if (modifiedBefore !== undefined && t.modifiedAt >= modifiedBefore) return false;
    if (byType && !byType(t)) return false;
    if (visible && !ctx.oracle.canSee(visible, 'task', t.gid)) return false;
    return true;
  };
  const key = (t: Task): number =>
    sortBy === 'created_at'
      ? t.createdAt
      : sortBy === 'due_date'
        ? t.dueOn
          ? Date.parse(t.dueOn)
          : Number.MAX_SAFE_INTEGER
        : sortBy === 'completed_at'
          ? (t.completedAt ?? 0)
          : sortBy === 'likes'
            ? 0
            : t.modifiedAt;
  const order = (a: Task, b: Task): number => (ascending ? 1 : -1) * (key(a) - key(b) || compareGids(a.gid, b.gid));
  // Only the first `limit` matter: keep a small sorted window instead of sorting the workspace.
  const best: Task[] = [];
  for (const id of s.indexes.tasksByWorkspace.get(ws.gid) ?? []) {
    const t = s.indexes.tasks.get(id);
    if (!t) continue;
    if (best.length === limit && order(t, best[limit - 1] as Task) >= 0) continue;
    if (!matches(t)) continue;
    let lo = 0;
    let hi = best.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (order(best[mid] as Task, t) <= 0) lo = mid + 1;
      else hi = mid;
    }
    best.splice(lo, 0, t);
    if (best.length > limit) best.pop();
  }
  return ok(renderMany(req, ctx, best.map(nodeMaker('task'))));
}

/** `?project=`, `?section=`, `?tag=`, `?user_task_list=` or `?assignee=` with `?workspace=`: exactly one. */
function tasksOfQuery(req: ApiRequest, ctx: MockContext): Task[] {
  const s = ctx.store;
  const q = req.query;
  const given = ['project', 'tag', 'section', 'user_task_list'].filter((k) => q[k] !== undefined).length + (q.assignee !== undefined ? 1 : 0);
  if (given !== 1 || (q.assignee !== undefined && q.workspace === undefined)) {
    throw badRequest('Must specify exactly one of project, tag, section, user task list, or assignee + workspace');
  }
  if (q.project !== undefined) {
    const project = lookup(s.indexes.projects, 'project', q.project);
    assertVisible(req, ctx, 'project', project.gid);
    return s.indexes.list(s.indexes.tasksByProject.get(project.gid), s.indexes.tasks);
  }
  if (q.section !== undefined) {
    const section = lookup(s.indexes.sections, 'section', q.section);
    assertVisible(req, ctx, 'project', section.project);
    return s.indexes.list(s.indexes.tasksBySection.get(section.gid), s.indexes.tasks);
  }
  if (q.tag !== undefined) return s.indexes.list(s.indexes.tasksByTag.get(lookup(s.indexes.tags, 'tag', q.tag).gid), s.indexes.tasks);
  if (q.user_task_list !== undefined) {
    const list = lookup(s.indexes.userTaskLists, 'user_task_list', q.user_task_list);
    return s.indexes.list(s.indexes.tasksByAssignee.get(`${list.owner}/${list.workspace}`), s.indexes.tasks);
  }
  const user = resolveUser(req, ctx, q.assignee, 'assignee');
  const ws = requireWorkspace(ctx, q.workspace);
  return s.indexes.list(s.indexes.tasksByAssignee.get(`${user.gid}/${ws.gid}`), s.indexes.tasks);
}

function addProject(req: ApiRequest, ctx: MockContext): void {
  const s = ctx.store;
  const task = taskParam(req, ctx);
  const data = bodyData(req);
  const project = lookup(s.indexes.projects, 'project', requireString(data, 'project'));
  if (project.workspace !== task.workspace) throw badRequest("project: The project is not in the task's workspace");
  const section = typeof data.section === 'string' ? lookup(s.indexes.sections, 'section', data.section) : undefined;
  if (section && section.project !== project.gid) throw badRequest('section: The section is not in that project');
  s.tasks.addToProject(task, project.gid, section?.gid ?? null);
}

function addFollowers(task: Task, req: ApiRequest, ctx: MockContext): void {
  const gids = gidList(bodyData(req).followers, 'followers');
  if (gids.length === 0) throw missingInput('followers');
  ctx.store.tasks.addFollowers(
    task,
    gids.map((g) => userIn(ctx, task.workspace, g, 'followers', req) as Gid),
  );
}

function removeFollowers(task: Task, req: ApiRequest, ctx: MockContext): void {
  ctx.store.tasks.removeFollowers(
    task,
    gidList(bodyData(req).followers, 'followers').map((g) => (g === 'me' ? req.caller.user.gid : g)),
  );
}

/**
 * `setParent {parent, insert_after?, insert_before?}` (reference §5.9): `parent` is required, a
 * task or `null`; at most one of the two positions, each a subtask of the new parent already, or
 * `null` (insert_after: first; insert_before: last). A task cannot go under itself or under one of
 * its own subtasks (400).
 */
function setParent(task: Task, req: ApiRequest, ctx: MockContext): void {
  const data = bodyData(req);
  if (!('parent' in data)) throw missingInput('parent');
  if (data.parent !== null && typeof data.parent !== 'string') throw badRequest('parent: Not a task gid');
  const parent = data.parent === null ? undefined : visibleTask(req, ctx, data.parent, 'parent');
  if (parent && parent.workspace !== task.workspace) throw badRequest("parent: The parent is not in the task's workspace");
  if (parent && ctx.store.indexes.ancestry(parent).some((t) => t.gid === task.gid))
    throw badRequest('parent: A task cannot be made a subtask of itself or of one of its own subtasks');
  ctx.store.tasks.setParent(task, parent?.gid ?? null, subtaskPosition(ctx, task, parent, data));
}

/** Where `setParent` puts the task among the new parent's other subtasks: an index, or undefined for the end. */
function subtaskPosition(ctx: MockContext, task: Task, parent: Task | undefined, data: Record<string, unknown>): number | undefined {
  const after = data.insert_after;
  const before = data.insert_before;
  if (after !== undefined && before !== undefined) throw badRequest('You may only provide one of insert_before or insert_after!');
  const field = after !== undefined ? 'insert_after' : 'insert_before';
  const sibling = after !== undefined ? after : before;
  if (sibling === undefined || sibling === null) return after === null ? 0 : undefined;
  const siblings = (parent ? (ctx.store.indexes.subtasksByTask.get(parent.gid) ?? []) : []).filter((gid) => gid !== task.gid);
  const at = typeof sibling === 'string' ? siblings.indexOf(sibling) : -1;
  if (at < 0) throw badRequest(`${field}: Not a subtask of the new parent: ${String(sibling)}`);
  return after !== undefined ? at + 1 : at;
}

export const taskRoutes: Route[] = [
  taskList('/tasks', tasksOfQuery),
  getOne('/tasks/:task_gid', 'task', taskParam),
  created('/tasks', 'task', 'tasks', (req, ctx) => createTask(req, ctx, bodyData(req))),
  changed('PUT', '/tasks/:task_gid', 'task', taskParam, (task, req, ctx) => updateTask(req, ctx, task, bodyData(req))),
  act('DELETE', '/tasks/:task_gid', (req, ctx) => ctx.store.tasks.delete(taskParam(req, ctx))),
  taskList('/tasks/:task_gid/subtasks', (req, ctx) =>
    ctx.store.indexes.list(ctx.store.indexes.subtasksByTask.get(taskParam(req, ctx).gid), ctx.store.indexes.tasks),
  ),
  created('/tasks/:task_gid/subtasks', 'task', 'tasks', (req, ctx) => createTask(req, ctx, bodyData(req), taskParam(req, ctx).gid)),
  act('POST', '/tasks/:task_gid/addProject', addProject),
  act('POST', '/tasks/:task_gid/removeProject', (req, ctx) => {
    const task = taskParam(req, ctx);
    ctx.store.tasks.removeFromProject(task, lookup(ctx.store.indexes.projects, 'project', requireString(bodyData(req), 'project')).gid);
  }),
  changed('POST', '/tasks/:task_gid/setParent', 'task', taskParam, setParent),
  changed('POST', '/tasks/:task_gid/addFollowers', 'task', taskParam, addFollowers),
  changed('POST', '/tasks/:task_gid/removeFollowers', 'task', taskParam, removeFollowers),
  act('POST', '/tasks/:task_gid/addTag', (req, ctx) => {
    const task = taskParam(req, ctx);
    ctx.store.tasks.tag(task, lookup(ctx.store.indexes.tags, 'tag', requireString(bodyData(req), 'tag')).gid);
  }),
  created('/tasks/:task_gid/duplicate', 'job', 'jobs', (req, ctx) => ctx.jobs.duplicateTask(taskParam(req, ctx), bodyData(req), req.caller.user.gid)),
  { method: 'GET', path: '/workspaces/:workspace_gid/tasks/search', handler: searchTasks },
];
