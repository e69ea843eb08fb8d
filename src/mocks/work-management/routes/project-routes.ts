/**
 * Projects, memberships (users and whole teams), followers, sections, custom field settings,
 * project statuses and project portfolio settings (reference §5.6–5.8).
 */
import { badRequest, missingInput } from '../api/api-error';
import { node, nodeMaker } from '../api/representations';
import { bodyData, gidList, ok, queryBool, type ApiRequest, type Route } from '../api/route-table';
import type { MockContext } from '../mock-context';
import type { AccessLevel, Membership, Project } from '../model';
import { addCustomFieldSetting, removeCustomFieldSetting } from '../rules/custom-fields';
import { ACCESS_LEVELS, addProjectFollowers, addProjectMembers, createProject, removeProjectFollowers, removeProjectMembers, updateProject } from '../rules/projects';
import { createProjectStatus } from '../rules/status-updates';
import {
  assertInWorkspace,
  assertVisible,
  callerInWorkspace,
  createdResponse,
  emptyResponse,
  isServiceAccount,
  listResponse,
  lookup,
  oneResponse,
  requireString,
  requireWorkspace,
  resolveUser,
  visibleOnly,
} from './route-helpers';
import { taskListing } from './task-routes';

export function visibleProject(req: ApiRequest, ctx: MockContext, gid: string | undefined, field = 'project'): Project {
  const project = lookup(ctx.store.projects, field, gid);
  assertVisible(req, ctx, 'project', project.gid);
  return project;
}

function filterArchived(req: ApiRequest, projects: Project[]): Project[] {
  const archived = queryBool(req, 'archived');
  return archived === undefined ? projects : projects.filter((p) => p.archived === archived);
}

/** The parent of custom field setting endpoints: a project, or a user task list in its place. */
function settingsParent(req: ApiRequest, ctx: MockContext): string {
  const gid = req.params.project_gid;
  if (gid && ctx.store.userTaskLists.has(gid)) return gid;
  return visibleProject(req, ctx, gid).gid;
}

export const projectRoutes: Route[] = [
  {
    method: 'GET',
    path: '/projects',
    handler: (req, ctx) => {
      const s = ctx.store;
      let projects: Project[];
      if (req.query.team !== undefined) {
        const team = lookup(s.teams, 'team', req.query.team);
        projects = s.list(s.projectsByTeam.get(team.gid), s.projects);
      } else if (req.query.workspace !== undefined) {
        const ws = requireWorkspace(ctx, req.query.workspace);
        assertInWorkspace(req, ctx, ws.gid);
        projects = s.list(s.projectsByWorkspace.get(ws.gid), s.projects);
      } else {
        projects = [...s.projects.values()].filter((p) => callerInWorkspace(req, ctx, p.workspace));
      }
      return listResponse(req, ctx, visibleOnly(req, ctx, 'project', filterArchived(req, projects)), nodeMaker('project'));
    },
  },
  {
    method: 'GET',
    path: '/workspaces/:workspace_gid/projects',
    handler: (req, ctx) => {
      const ws = requireWorkspace(ctx, req.params.workspace_gid);
      assertInWorkspace(req, ctx, ws.gid);
      const projects = ctx.store.list(ctx.store.projectsByWorkspace.get(ws.gid), ctx.store.projects);
      return listResponse(req, ctx, visibleOnly(req, ctx, 'project', filterArchived(req, projects)), nodeMaker('project'));
    },
  },
  {
    method: 'GET',
    path: '/teams/:team_gid/projects',
    handler: (req, ctx) => {
      const team = lookup(ctx.store.teams, 'team', req.params.team_gid);
      assertInWorkspace(req, ctx, team.workspace);
      const projects = ctx.store.list(ctx.store.projectsByTeam.get(team.gid), ctx.store.projects);
      return listResponse(req, ctx, visibleOnly(req, ctx, 'project', filterArchived(req, projects)), nodeMaker('project'));
    },
  },
  {
    method: 'GET',
    path: '/tasks/:task_gid/projects',
    handler: (req, ctx) => {
      const task = lookup(ctx.store.tasks, 'task', req.params.task_gid);
      assertVisible(req, ctx, 'task', task.gid);
      const projects = ctx.store.list(ctx.store.taskProjects(task), ctx.store.projects);
      // A collaborator outside a private project sees the task but not the project (§6).
      return listResponse(req, ctx, visibleOnly(req, ctx, 'project', projects), nodeMaker('project'));
    },
  },
  {
    method: 'GET',
    path: '/projects/:project_gid',
    handler: (req, ctx) => oneResponse(req, ctx, node('project', visibleProject(req, ctx, req.params.project_gid))),
  },
  {
    method: 'POST',
    path: '/projects',
    handler: (req, ctx) => {
      const project = createProject(ctx.store, bodyData(req), req.caller.user.isServiceAccount ? null : req.caller.user.gid);
      return createdResponse(req, ctx, node('project', project), `/projects/${project.gid}`);
    },
  },
  {
    method: 'POST',
    path: '/workspaces/:workspace_gid/projects',
    handler: (req, ctx) => {
      const project = createProject(ctx.store, { ...bodyData(req), workspace: req.params.workspace_gid }, req.caller.user.isServiceAccount ? null : req.caller.user.gid);
      return createdResponse(req, ctx, node('project', project), `/projects/${project.gid}`);
    },
  },
  {
    method: 'POST',
    path: '/teams/:team_gid/projects',
    handler: (req, ctx) => {
      const team = lookup(ctx.store.teams, 'team', req.params.team_gid);
      const project = createProject(ctx.store, { ...bodyData(req), team: team.gid, workspace: team.workspace }, req.caller.user.isServiceAccount ? null : req.caller.user.gid);
      return createdResponse(req, ctx, node('project', project), `/projects/${project.gid}`);
    },
  },
  {
    method: 'PUT',
    path: '/projects/:project_gid',
    handler: (req, ctx) => {
      const project = visibleProject(req, ctx, req.params.project_gid);
      updateProject(ctx.store, project, bodyData(req));
      return oneResponse(req, ctx, node('project', project));
    },
  },
  {
    method: 'DELETE',
    path: '/projects/:project_gid',
    handler: (req, ctx) => {
      const s = ctx.store;
      const project = visibleProject(req, ctx, req.params.project_gid);
      // Tasks stay (they may live elsewhere); they just leave the project.
      for (const t of s.list(s.tasksByProject.get(project.gid), s.tasks)) s.removeTaskFromProject(t, project.gid);
      for (const m of s.projectMemberships(project.gid)) s.removeMembership(m);
      s.projects.delete(project.gid);
      s.projectsByWorkspace.get(project.workspace)?.splice(s.projectsByWorkspace.get(project.workspace)?.indexOf(project.gid) ?? -1, 1);
      if (project.team) s.projectsByTeam.get(project.team)?.splice(s.projectsByTeam.get(project.team)?.indexOf(project.gid) ?? -1, 1);
      s.record('deleted', s.ref('project', project.gid, project.name), null, [project.gid, project.workspace]);
      return emptyResponse();
    },
  },
  ...(['addMembers', 'removeMembers', 'addFollowers', 'removeFollowers'] as const).map(
    (action): Route => ({
      method: 'POST',
      path: `/projects/:project_gid/${action}`,
      handler: (req, ctx) => {
        const project = visibleProject(req, ctx, req.params.project_gid);
        const data = bodyData(req);
        const field = action.endsWith('Members') ? 'members' : 'followers';
        const gids = gidList(data[field], field).map((g) => (g === 'me' ? req.caller.user.gid : g));
        if (gids.length === 0) throw missingInput(field);
        if (action === 'addMembers') addProjectMembers(ctx.store, project, gids, accessLevelOf(data.access_level));
        else if (action === 'removeMembers') removeProjectMembers(ctx.store, project, gids);
        else if (action === 'addFollowers') addProjectFollowers(ctx.store, project, gids);
        else removeProjectFollowers(ctx.store, project, gids);
        return oneResponse(req, ctx, node('project', project));
      },
    }),
  ),
  {
    method: 'GET',
    path: '/memberships',
    handler: (req, ctx) => {
      const s = ctx.store;
      let list: Membership[];
      if (req.query.parent !== undefined) {
        const parent = req.query.parent;
        const kind = s.kindOf(parent);
        if (kind === 'project') visibleProject(req, ctx, parent, 'parent');
        else if (kind !== 'portfolio' && kind !== 'goal') lookup(new Map(), 'parent', parent);
        list = s.projectMemberships(parent);
        if (req.query.member !== undefined) list = list.filter((m) => m.member === req.query.member);
      } else if (req.query.member !== undefined) {
        const member = req.query.member === 'me' ? req.caller.user.gid : req.query.member;
        if (s.kindOf(member) === 'user') throw badRequest('parent: Missing input (a user member needs a parent)');
        lookup(s.teams, 'member', member);
        list = s.list(s.membershipsByMember.get(member), s.memberships);
      } else throw missingInput('parent');
      if (req.query.resource_subtype !== undefined) list = list.filter((m) => `${m.parentType}_membership` === req.query.resource_subtype);
      return listResponse(req, ctx, list, nodeMaker('membership'));
    },
  },
  {
    method: 'GET',
    path: '/memberships/:membership_gid',
    handler: (req, ctx) => {
      const m = lookup(ctx.store.memberships, 'membership', req.params.membership_gid);
      if (m.parentType === 'project') assertVisible(req, ctx, 'project', m.parent);
      return oneResponse(req, ctx, node('membership', m));
    },
  },
  {
    method: 'POST',
    path: '/memberships',
    handler: (req, ctx) => {
      const data = bodyData(req);
      const parent = requireString(data, 'parent');
      const member = requireString(data, 'member');
      const project = visibleProject(req, ctx, parent, 'parent');
      addProjectMembers(ctx.store, project, [member], accessLevelOf(data.access_level));
      const m = ctx.store.findMembership(project.gid, member) as Membership;
      return createdResponse(req, ctx, node('membership', m), `/memberships/${m.gid}`);
    },
  },
  {
    method: 'DELETE',
    path: '/memberships/:membership_gid',
    handler: (req, ctx) => {
      const m = lookup(ctx.store.memberships, 'membership', req.params.membership_gid);
      ctx.store.removeMembership(m);
      return emptyResponse();
    },
  },
  {
    method: 'GET',
    path: '/projects/:project_gid/project_memberships',
    handler: (req, ctx) => {
      const project = visibleProject(req, ctx, req.params.project_gid);
      // The legacy list returns user members only (team members are missing, as observed).
      let list = ctx.store.projectMemberships(project.gid).filter((m) => m.memberType === 'user');
      if (req.query.user !== undefined) {
        const user = resolveUser(req, ctx, req.query.user);
        list = list.filter((m) => m.member === user.gid);
      }
      return listResponse(req, ctx, list, nodeMaker('legacyProjectMembership'));
    },
  },
  {
    method: 'GET',
    path: '/project_memberships/:project_membership_gid',
    handler: (req, ctx) => {
      const m = lookup(ctx.store.memberships, 'project_membership', req.params.project_membership_gid);
      if (m.parentType !== 'project') lookup(new Map(), 'project_membership', m.gid);
      return oneResponse(req, ctx, node('legacyProjectMembership', m));
    },
  },
  {
    method: 'GET',
    path: '/projects/:project_gid/sections',
    handler: (req, ctx) => {
      const project = visibleProject(req, ctx, req.params.project_gid);
      return listResponse(req, ctx, ctx.store.list(ctx.store.sectionsByProject.get(project.gid), ctx.store.sections), nodeMaker('section'));
    },
  },
  {
    method: 'POST',
    path: '/projects/:project_gid/sections',
    handler: (req, ctx) => {
      const project = visibleProject(req, ctx, req.params.project_gid);
      const section = ctx.store.addSection({ project: project.gid, name: requireString(bodyData(req), 'name') });
      return createdResponse(req, ctx, node('section', section), `/sections/${section.gid}`);
    },
  },
  {
    method: 'GET',
    path: '/sections/:section_gid',
    handler: (req, ctx) => {
      const section = lookup(ctx.store.sections, 'section', req.params.section_gid);
      visibleProject(req, ctx, section.project);
      return oneResponse(req, ctx, node('section', section));
    },
  },
  {
    method: 'GET',
    path: '/sections/:section_gid/tasks',
    handler: (req, ctx) => {
      const section = lookup(ctx.store.sections, 'section', req.params.section_gid);
      visibleProject(req, ctx, section.project);
      return taskListing(req, ctx, ctx.store.list(ctx.store.tasksBySection.get(section.gid), ctx.store.tasks));
    },
  },
  {
    method: 'POST',
    path: '/sections/:section_gid/addTask',
    handler: (req, ctx) => {
      const section = lookup(ctx.store.sections, 'section', req.params.section_gid);
      const task = lookup(ctx.store.tasks, 'task', requireString(bodyData(req), 'task'));
      ctx.store.addTaskToProject(task, section.project, section.gid);
      return emptyResponse();
    },
  },
  {
    method: 'GET',
    path: '/projects/:project_gid/tasks',
    handler: (req, ctx) => {
      const project = visibleProject(req, ctx, req.params.project_gid);
      return taskListing(req, ctx, ctx.store.list(ctx.store.tasksByProject.get(project.gid), ctx.store.tasks));
    },
  },
  {
    method: 'GET',
    path: '/projects/:project_gid/custom_field_settings',
    handler: (req, ctx) => listResponse(req, ctx, ctx.store.settingsOf(settingsParent(req, ctx)), nodeMaker('customFieldSetting')),
  },
  {
    method: 'POST',
    path: '/projects/:project_gid/addCustomFieldSetting',
    handler: (req, ctx) => {
      const data = bodyData(req);
      const setting = addCustomFieldSetting(ctx.store, settingsParent(req, ctx), data.custom_field, data.is_important);
      return ok(renderSetting(req, ctx, setting.gid));
    },
  },
  {
    method: 'POST',
    path: '/projects/:project_gid/removeCustomFieldSetting',
    handler: (req, ctx) => {
      removeCustomFieldSetting(ctx.store, settingsParent(req, ctx), bodyData(req).custom_field);
      return emptyResponse();
    },
  },
  {
    method: 'GET',
    path: '/projects/:project_gid/project_statuses',
    handler: (req, ctx) => {
      const project = visibleProject(req, ctx, req.params.project_gid);
      return listResponse(req, ctx, ctx.store.list(ctx.store.projectStatusesByProject.get(project.gid), ctx.store.projectStatuses), nodeMaker('projectStatus'));
    },
  },
  {
    method: 'POST',
    path: '/projects/:project_gid/project_statuses',
    handler: (req, ctx) => {
      const project = visibleProject(req, ctx, req.params.project_gid);
      const status = createProjectStatus(ctx.store, project, bodyData(req), isServiceAccount(req) ? null : req.caller.user.gid);
      return createdResponse(req, ctx, node('projectStatus', status), `/project_statuses/${status.gid}`);
    },
  },
  {
    method: 'GET',
    path: '/project_statuses/:project_status_gid',
    handler: (req, ctx) => oneResponse(req, ctx, node('projectStatus', lookup(ctx.store.projectStatuses, 'project_status', req.params.project_status_gid))),
  },
  {
    method: 'DELETE',
    path: '/project_statuses/:project_status_gid',
    handler: (req, ctx) => {
      ctx.store.deleteProjectStatus(lookup(ctx.store.projectStatuses, 'project_status', req.params.project_status_gid));
      return emptyResponse();
    },
  },
  {
    method: 'GET',
    path: '/projects/:project_gid/project_portfolio_settings',
    handler: (req, ctx) => {
      const project = visibleProject(req, ctx, req.params.project_gid);
      return listResponse(req, ctx, ctx.store.list(ctx.store.portfolioSettingsByProject.get(project.gid), ctx.store.projectPortfolioSettings), nodeMaker('projectPortfolioSetting'));
    },
  },
  {
    method: 'POST',
    path: '/projects/:project_gid/duplicate',
    handler: (req, ctx) => {
      const project = visibleProject(req, ctx, req.params.project_gid);
      const job = ctx.jobs.duplicateProject(project, bodyData(req), req.caller.user.gid);
      return createdResponse(req, ctx, node('job', job), `/jobs/${job.gid}`);
    },
  },
];

function accessLevelOf(raw: unknown): AccessLevel | undefined {
  if (raw === undefined || raw === null) return undefined;
  if (typeof raw !== 'string' || !(ACCESS_LEVELS as readonly string[]).includes(raw)) throw badRequest(`access_level: must be one of ${ACCESS_LEVELS.join(', ')}`);
  return raw as AccessLevel;
}

function renderSetting(req: ApiRequest, ctx: MockContext, gid: string): unknown {
  const setting = ctx.store.customFieldSettings.get(gid);
  return setting ? (oneResponse(req, ctx, node('customFieldSetting', setting)).body as { data: unknown }).data : null;
}
