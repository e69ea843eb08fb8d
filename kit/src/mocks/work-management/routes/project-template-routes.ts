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
import { bodyData, type ApiRequest, type Route } from '../api/route-table';
import type { MockContext } from '../mock-context';
import type { ProjectTemplate } from '../model';
import { instantiateProject } from '../rules/project-templates';
import { assertInWorkspace, lookup, requireWorkspace } from './route-helpers';
import { byGid, created, getOne, inWorkspace, listOf } from './route-factories';

const templateParam = inWorkspace(byGid('project_template', (s) => s.indexes.projectTemplates));
const teamParam = inWorkspace(byGid('team', (s) => s.indexes.teams));

function templatesOfTeam(ctx: MockContext, team: string): ProjectTemplate[] {
  return ctx.store.indexes.list(ctx.store.indexes.projectTemplatesByTeam.get(team), ctx.store.indexes.projectTemplates);
}

/** `?workspace=` (every team's templates) or `?team=`. */
function templatesOfQuery(req: ApiRequest, ctx: MockContext): ProjectTemplate[] {
  const { workspace, team } = req.query;
  if ((workspace === undefined) === (team === undefined)) throw badRequest('Must specify exactly one of workspace or team');
  if (team !== undefined) {
    const t = lookup(ctx.store.indexes.teams, 'team', team);
    assertInWorkspace(req, ctx, t.workspace);
    return templatesOfTeam(ctx, t.gid);
  }
  const ws = requireWorkspace(ctx, workspace);
  assertInWorkspace(req, ctx, ws.gid);
  return ctx.store.indexes.list(ctx.store.indexes.teamsByWorkspace.get(ws.gid), ctx.store.indexes.teams).flatMap((t) => templatesOfTeam(ctx, t.gid));
}

export const projectTemplateRoutes: Route[] = [
  listOf('/project_templates', 'projectTemplate', templatesOfQuery),
  listOf('/teams/:team_gid/project_templates', 'projectTemplate', (req, ctx) => templatesOfTeam(ctx, teamParam(req, ctx).gid)),
  getOne('/project_templates/:project_template_gid', 'projectTemplate', templateParam),
  {
    ...created('/project_templates/:project_template_gid/instantiateProject', 'job', 'jobs', (req, ctx) =>
      instantiateProject(ctx.store, ctx.jobs, templateParam(req, ctx), bodyData(req), req.caller.user.gid),
    ),
    scope: 'projects:write',
  },
];
