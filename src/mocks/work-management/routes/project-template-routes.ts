/**
 * Project templates: listing, reading, and instantiating a project from one (a job; rules in
 * rules/project-templates.ts).
 *
 *   GET  /project_templates?workspace=|team=
 *   GET  /teams/{team_gid}/project_templates
 *   GET  /project_templates/{project_template_gid}
 *   POST /project_templates/{project_template_gid}/instantiateProject   (scope projects:write)
 */
import { badRequest } from '../api/api-error';
import { node, nodeMaker } from '../api/representations';
import { bodyData, type ApiRequest, type Route } from '../api/route-table';
import type { MockContext } from '../mock-context';
import type { ProjectTemplate } from '../model';
import { instantiateProject } from '../rules/project-templates';
import { assertInWorkspace, createdResponse, listResponse, lookup, oneResponse, requireWorkspace } from './route-helpers';

function template(req: ApiRequest, ctx: MockContext): ProjectTemplate {
  const t = lookup(ctx.store.projectTemplates, 'project_template', req.params.project_template_gid);
  assertInWorkspace(req, ctx, t.workspace);
  return t;
}

function templatesOfTeam(ctx: MockContext, team: string): ProjectTemplate[] {
  return ctx.store.list(ctx.store.projectTemplatesByTeam.get(team), ctx.store.projectTemplates);
}

export const projectTemplateRoutes: Route[] = [
  {
    method: 'GET',
    path: '/project_templates',
    handler: (req, ctx) => {
      const { workspace, team } = req.query;
      if ((workspace === undefined) === (team === undefined)) throw badRequest('Must specify exactly one of workspace or team');
      if (team !== undefined) {
        const t = lookup(ctx.store.teams, 'team', team);
        assertInWorkspace(req, ctx, t.workspace);
        return listResponse(req, ctx, templatesOfTeam(ctx, t.gid), nodeMaker('projectTemplate'));
      }
      const ws = requireWorkspace(ctx, workspace);
      assertInWorkspace(req, ctx, ws.gid);
      const all = ctx.store.list(ctx.store.teamsByWorkspace.get(ws.gid), ctx.store.teams).flatMap((t) => templatesOfTeam(ctx, t.gid));
      return listResponse(req, ctx, all, nodeMaker('projectTemplate'));
    },
  },
  {
    method: 'GET',
    path: '/teams/:team_gid/project_templates',
    handler: (req, ctx) => {
      const t = lookup(ctx.store.teams, 'team', req.params.team_gid);
      assertInWorkspace(req, ctx, t.workspace);
      return listResponse(req, ctx, templatesOfTeam(ctx, t.gid), nodeMaker('projectTemplate'));
    },
  },
  {
    method: 'GET',
    path: '/project_templates/:project_template_gid',
    handler: (req, ctx) => oneResponse(req, ctx, node('projectTemplate', template(req, ctx))),
  },
  {
    method: 'POST',
    path: '/project_templates/:project_template_gid/instantiateProject',
    scope: 'projects:write',
    handler: (req, ctx) => {
      const job = instantiateProject(ctx.store, ctx.jobs, template(req, ctx), bodyData(req), req.caller.user.gid);
      return createdResponse(req, ctx, node('job', job), `/jobs/${job.gid}`);
    },
  },
];
