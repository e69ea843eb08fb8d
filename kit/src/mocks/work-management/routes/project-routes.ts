/**
 * Projects, memberships (users and whole teams), followers, sections, custom field settings,
 * project statuses and project portfolio settings (reference §5.6–5.8).
 */
import { badRequest, missingInput } from '../api/api-error';
import { node } from '../api/representations';
import { bodyData, gidList, ok, queryBool, type ApiRequest, type Route } from '../api/route-table';
import type { MockContext } from '../mock-context';
import type { AccessLevel, Membership, Project, Section } from '../model';
import { addCustomFieldSetting, removeCustomFieldSetting } from '../rules/custom-fields';
import {
  ACCESS_LEVELS,
  addProjectFollowers,
  addProjectMembers,
  createProject,
  removeProjectFollowers,
  removeProjectMembers,
  updateProject,
} from '../rules/projects';
import { createProjectStatus } from '../rules/status-updates';
import { assertVisible, callerInWorkspace, lookup, memberWorkspace, oneResponse, requireString, resolveUser, visibleOnly } from './route-helpers';
import { act, byGid, changed, created, getOne, inWorkspace, listOf, memberWorkspaceParam, under, type Finder } from './route-factories';
import { authorOf, taskList, taskParam } from './task-finders';

export function visibleProject(req: ApiRequest, ctx: MockContext, gid: string | undefined, field = 'project'): Project {
  const project = lookup(ctx.store.indexes.projects, field, gid);
  assertVisible(req, ctx, 'project', project.gid);
  return project;
}

/** The project of the path (`:project_gid`), 403 unless the caller may see it. */
export const projectParam: Finder<Project> = (req, ctx) => visibleProject(req, ctx, req.params.project_gid);

/** The section of the path, 403 unless the caller may see its project. */
const sectionParam: Finder<Section> = (req, ctx) => {
  const section = lookup(ctx.store.indexes.sections, 'section', req.params.section_gid);
  visibleProject(req, ctx, section.project);
  return section;
};

const projectStatusParam = byGid('project_status', (s) => s.indexes.projectStatuses);
const membershipParam = byGid('membership', (s) => s.indexes.memberships);

/** The projects the caller may see among `projects`, filtered by `?archived=`. */
function visibleProjects(req: ApiRequest, ctx: MockContext, projects: Project[]): readonly Project[] {
  const archived = queryBool(req, 'archived');
  return visibleOnly(req, ctx, 'project', archived === undefined ? projects : projects.filter((p) => p.archived === archived));
}

/** The parent of custom field setting endpoints: a project, or a user task list in its place. */
function settingsParent(req: ApiRequest, ctx: MockContext): string {
  const gid = req.params.project_gid;
  if (gid && ctx.store.indexes.userTaskLists.has(gid)) return gid;
  return visibleProject(req, ctx, gid).gid;
}

/** `?team=`, `?workspace=` or every workspace of the caller. */
function projectsOfQuery(req: ApiRequest, ctx: MockContext): readonly Project[] {
  const s = ctx.store;
  let projects: Project[];
  if (req.query.team !== undefined) {
    const team = lookup(s.indexes.teams, 'team', req.query.team);
    projects = s.indexes.list(s.indexes.projectsByTeam.get(team.gid), s.indexes.projects);
  } else if (req.query.workspace !== undefined) {
    projects = s.indexes.list(s.indexes.projectsByWorkspace.get(memberWorkspace(req, ctx, req.query.workspace).gid), s.indexes.projects);
  } else {
    projects = [...s.indexes.projects.values()].filter((p) => callerInWorkspace(req, ctx, p.workspace));
  }
  return visibleProjects(req, ctx, projects);
}

/** A new project, owned by the caller (nobody for the service account). */
function newProject(defaults: (req: ApiRequest, ctx: MockContext) => Record<string, unknown>): Finder<Project> {
  return (req, ctx) => {
    const given = defaults(req, ctx);
    return createProject(ctx.store, { ...bodyData(req), ...given }, authorOf(req));
  };
}

/** Tasks stay (they may live elsewhere); they just leave the project. */
function deleteProject(req: ApiRequest, ctx: MockContext): void {
  const s = ctx.store;
  const project = projectParam(req, ctx);
  for (const t of s.indexes.list(s.indexes.tasksByProject.get(project.gid), s.indexes.tasks)) s.tasks.removeFromProject(t, project.gid);
  s.projects.delete(project);
}

/** `addMembers`, `removeMembers`, `addFollowers`, `removeFollowers`: a list of gids (`me` allowed). */
function memberAction(action: 'addMembers' | 'removeMembers' | 'addFollowers' | 'removeFollowers'): Route {
  return changed('POST', `/projects/:project_gid/${action}`, 'project', projectParam, (project, req, ctx) => {
    const data = bodyData(req);
    const field = action.endsWith('Members') ? 'members' : 'followers';
    const gids = gidList(data[field], field).map((g) => (g === 'me' ? req.caller.user.gid : g));
    if (gids.length === 0) throw missingInput(field);
    if (action === 'addMembers') addProjectMembers(ctx.store, project, gids, accessLevelOf(data.access_level));
    else if (action === 'removeMembers') removeProjectMembers(ctx.store, project, gids);
    else if (action === 'addFollowers') addProjectFollowers(ctx.store, project, gids);
    else removeProjectFollowers(ctx.store, project, gids);
  });
}

/** `?parent=` (and optionally `?member=`) or a team `?member=`; `?resource_subtype=` filters. */
function membershipsOfQuery(req: ApiRequest, ctx: MockContext): Membership[] {
  const s = ctx.store;
  let list: Membership[];
  if (req.query.parent !== undefined) {
    const parent = req.query.parent;
    const kind = s.indexes.kindOf(parent);
    if (kind === 'project') visibleProject(req, ctx, parent, 'parent');
    else if (kind !== 'portfolio' && kind !== 'goal') lookup(new Map(), 'parent', parent);
    list = s.projects.memberships(parent);
    if (req.query.member !== undefined) list = list.filter((m) => m.member === req.query.member);
  } else if (req.query.member !== undefined) {
    const member = req.query.member === 'me' ? req.caller.user.gid : req.query.member;
    if (s.indexes.kindOf(member) === 'user') throw badRequest('parent: Missing input (a user member needs a parent)');
    lookup(s.indexes.teams, 'member', member);
    list = s.indexes.list(s.indexes.membershipsByMember.get(member), s.indexes.memberships);
  } else throw missingInput('parent');
  if (req.query.resource_subtype !== undefined) list = list.filter((m) => `${m.parentType}_membership` === req.query.resource_subtype);
  return list;
}

function addMembership(req: ApiRequest, ctx: MockContext): Membership {
  const data = bodyData(req);
  const parent = requireString(data, 'parent');
  const member = requireString(data, 'member');
  const project = visibleProject(req, ctx, parent, 'parent');
  addProjectMembers(ctx.store, project, [member], accessLevelOf(data.access_level));
  return ctx.store.projects.findMembership(project.gid, member) as Membership;
}

/** The legacy list returns user members only (team members are missing, as observed). */
function legacyMembershipsOf(req: ApiRequest, ctx: MockContext): Membership[] {
  const project = projectParam(req, ctx);
  let list = ctx.store.projects.memberships(project.gid).filter((m) => m.memberType === 'user');
  if (req.query.user !== undefined) {
    const user = resolveUser(req, ctx, req.query.user);
    list = list.filter((m) => m.member === user.gid);
  }
  return list;
}

function legacyMembership(req: ApiRequest, ctx: MockContext): Membership {
  const m = lookup(ctx.store.indexes.memberships, 'project_membership', req.params.project_membership_gid);
  if (m.parentType !== 'project') lookup(new Map(), 'project_membership', m.gid);
  return m;
}

export const projectRoutes: Route[] = [
  listOf('/projects', 'project', projectsOfQuery),
  listOf(
    '/workspaces/:workspace_gid/projects',
    'project',
    under(memberWorkspaceParam, (s, ws, req, ctx) => visibleProjects(req, ctx, s.indexes.list(s.indexes.projectsByWorkspace.get(ws.gid), s.indexes.projects))),
  ),
  listOf(
    '/teams/:team_gid/projects',
    'project',
    under(inWorkspace(byGid('team', (s) => s.indexes.teams)), (s, team, req, ctx) =>
      visibleProjects(req, ctx, s.indexes.list(s.indexes.projectsByTeam.get(team.gid), s.indexes.projects)),
    ),
  ),
  // A collaborator outside a private project sees the task but not the project (§6).
  listOf(
    '/tasks/:task_gid/projects',
    'project',
    under(taskParam, (s, task, req, ctx) => visibleOnly(req, ctx, 'project', s.indexes.list(s.tasks.projectsOf(task), s.indexes.projects))),
  ),
  getOne('/projects/:project_gid', 'project', projectParam),
  created(
    '/projects',
    'project',
    'projects',
    newProject(() => ({})),
  ),
  created(
    '/workspaces/:workspace_gid/projects',
    'project',
    'projects',
    newProject((req) => ({ workspace: req.params.workspace_gid })),
  ),
  created(
    '/teams/:team_gid/projects',
    'project',
    'projects',
    newProject((req, ctx) => {
      const team = lookup(ctx.store.indexes.teams, 'team', req.params.team_gid);
      return { team: team.gid, workspace: team.workspace };
    }),
  ),
  changed('PUT', '/projects/:project_gid', 'project', projectParam, (project, req, ctx) => updateProject(ctx.store, project, bodyData(req))),
  act('DELETE', '/projects/:project_gid', deleteProject),
  memberAction('addMembers'),
  memberAction('removeMembers'),
  memberAction('addFollowers'),
  memberAction('removeFollowers'),
  listOf('/memberships', 'membership', membershipsOfQuery),
  getOne('/memberships/:membership_gid', 'membership', (req, ctx) => {
    const m = membershipParam(req, ctx);
    if (m.parentType === 'project') assertVisible(req, ctx, 'project', m.parent);
    return m;
  }),
  created('/memberships', 'membership', 'memberships', addMembership),
  act('DELETE', '/memberships/:membership_gid', (req, ctx) => ctx.store.projects.removeMembership(membershipParam(req, ctx))),
  listOf('/projects/:project_gid/project_memberships', 'legacyProjectMembership', legacyMembershipsOf),
  getOne('/project_memberships/:project_membership_gid', 'legacyProjectMembership', legacyMembership),
  listOf(
    '/projects/:project_gid/sections',
    'section',
    under(projectParam, (s, project) => s.indexes.list(s.indexes.sectionsByProject.get(project.gid), s.indexes.sections)),
  ),
  created('/projects/:project_gid/sections', 'section', 'sections', (req, ctx) =>
    ctx.store.projects.addSection({ project: projectParam(req, ctx).gid, name: requireString(bodyData(req), 'name') }),
  ),
  getOne('/sections/:section_gid', 'section', sectionParam),
  taskList('/sections/:section_gid/tasks', (req, ctx) =>
    ctx.store.indexes.list(ctx.store.indexes.tasksBySection.get(sectionParam(req, ctx).gid), ctx.store.indexes.tasks),
  ),
  act('POST', '/sections/:section_gid/addTask', (req, ctx) => {
    const section = lookup(ctx.store.indexes.sections, 'section', req.params.section_gid);
    ctx.store.tasks.addToProject(lookup(ctx.store.indexes.tasks, 'task', requireString(bodyData(req), 'task')), section.project, section.gid);
  }),
  taskList('/projects/:project_gid/tasks', (req, ctx) =>
    ctx.store.indexes.list(ctx.store.indexes.tasksByProject.get(projectParam(req, ctx).gid), ctx.store.indexes.tasks),
  ),
  listOf('/projects/:project_gid/custom_field_settings', 'customFieldSetting', (req, ctx) => ctx.store.catalog.settingsOf(settingsParent(req, ctx))),
  {
    method: 'POST',
    path: '/projects/:project_gid/addCustomFieldSetting',
    handler: (req, ctx) => {
      const data = bodyData(req);
      const setting = addCustomFieldSetting(ctx.store, settingsParent(req, ctx), data.custom_field, data.is_important);
      return ok(renderSetting(req, ctx, setting.gid));
    },
  },
  act('POST', '/projects/:project_gid/removeCustomFieldSetting', (req, ctx) =>
    removeCustomFieldSetting(ctx.store, settingsParent(req, ctx), bodyData(req).custom_field),
  ),
  listOf(
    '/projects/:project_gid/project_statuses',
    'projectStatus',
    under(projectParam, (s, project) => s.indexes.list(s.indexes.projectStatusesByProject.get(project.gid), s.indexes.projectStatuses)),
  ),
  created('/projects/:project_gid/project_statuses', 'projectStatus', 'project_statuses', (req, ctx) =>
    createProjectStatus(ctx.store, projectParam(req, ctx), bodyData(req), authorOf(req)),
  ),
  getOne('/project_statuses/:project_status_gid', 'projectStatus', projectStatusParam),
  act('DELETE', '/project_statuses/:project_status_gid', (req, ctx) => ctx.store.catalog.deleteProjectStatus(projectStatusParam(req, ctx))),
  listOf(
    '/projects/:project_gid/project_portfolio_settings',
    'projectPortfolioSetting',
    under(projectParam, (s, project) => s.indexes.list(s.indexes.portfolioSettingsByProject.get(project.gid), s.indexes.projectPortfolioSettings)),
  ),
  created('/projects/:project_gid/duplicate', 'job', 'jobs', (req, ctx) =>
    ctx.jobs.duplicateProject(projectParam(req, ctx), bodyData(req), req.caller.user.gid),
  ),
];

function accessLevelOf(raw: unknown): AccessLevel | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'string' || !(ACCESS_LEVELS as readonly string[]).includes(raw))
    throw badRequest(`access_level: must be one of ${ACCESS_LEVELS.join(', ')}`);
  return raw as AccessLevel;
}

function renderSetting(req: ApiRequest, ctx: MockContext, gid: string): unknown {
  const setting = ctx.store.indexes.customFieldSettings.get(gid);
  return setting ? (oneResponse(req, ctx, node('customFieldSetting', setting)).body as { data: unknown }).data : null;
}
