/**
 * Reading by gid the resources the seed lists beyond the core ones, a task by its custom id, the
 * budgets of a parent, and running a rule trigger (rules in rules/budgets.ts, rules/rule-triggers.ts;
 * representations in api/represent-tracking.ts). Who may read what:
 * - through a project (briefs, rates, budgets, task templates, project portfolio settings, rule
 *   triggers) or a task (time tracking entries, a task by custom id): who may see it;
 * - workspace-scoped (agents, time periods, time tracking categories, timesheet approval
 *   statuses, goal relationships, portfolio memberships): who is in the workspace;
 * - an access request: its requester and the target's owner it was sent to.
 *
 *   GET  /workspaces/{workspace_gid}/tasks/custom_id/{custom_id}
 *   GET  /budgets?parent=                 (not paginated)      GET|PUT /budgets/{budget_gid}
 *   GET  /access_requests/{gid}  /agents/{gid}  /goal_relationships/{gid}  /project_briefs/{gid}
 *   GET  /project_portfolio_settings/{gid}  /rates/{gid}  /portfolio_memberships/{gid}
 *   GET  /task_templates/{gid}  /time_periods/{gid}  /time_tracking_categories/{gid}
 *   GET  /time_tracking_entries/{gid}  /timesheet_approval_statuses/{gid}
 *   POST /rule_triggers/{rule_trigger_gid}/run   {data: {resource, action_data?}}
 */
import { ApiError, forbidden, missingInput } from '../api/api-error';
import { nodeMaker, renderMany } from '../api/representations';
import { bodyData, ok, type ApiRequest, type Route } from '../api/route-table';
import type { MockContext } from '../mock-context';
import type { AccessRequest, Budget, Gid, Membership, Task, WorkManagementStore } from '../model';
import { updateBudget } from '../rules/budgets';
import { runRuleTrigger } from '../rules/rule-triggers';
import { visibleProject } from './project-routes';
import { assertInWorkspace, assertVisible, isServiceAccount, lookup, memberWorkspace } from './route-helpers';
import { byGid, changed, getOne, inWorkspace, type Finder } from './route-factories';

/** A record found by gid, then checked through the project it belongs to. */
function viaProject<T>(field: string, map: (s: WorkManagementStore) => Map<Gid, T>, project: (t: T) => Gid): Finder<T> {
  const find = byGid(field, map);
  return (req, ctx) => {
    const obj = find(req, ctx);
    visibleProject(req, ctx, project(obj));
    return obj;
  };
}

/** A record found by gid, then checked through the workspace it belongs to. */
function viaWorkspace<T>(field: string, map: (s: WorkManagementStore) => Map<Gid, T>, workspace: (t: T, s: WorkManagementStore) => Gid): Finder<T> {
  const find = byGid(field, map);
  return (req, ctx) => {
    const obj = find(req, ctx);
    assertInWorkspace(req, ctx, workspace(obj, ctx.store));
    return obj;
  };
}

const taskByCustomId: Finder<Task> = (req, ctx) => {
  const ws = memberWorkspace(req, ctx, req.params.workspace_gid);
  const gid = ctx.store.indexes.taskByCustomId.get(`${ws.gid}/${req.params.custom_id}`);
  const task = gid === undefined ? undefined : ctx.store.indexes.tasks.get(gid);
  if (!task) throw new ApiError(404, `custom_id: Unknown object: ${req.params.custom_id}`);
  assertVisible(req, ctx, 'task', task.gid);
  return task;
};

/** The requester and the owner the request was sent to; a service account reads every request. */
const accessRequestParam: Finder<AccessRequest> = (req, ctx) => {
  const request = byGid('access_request', (s) => s.indexes.accessRequests)(req, ctx);
  const me = req.caller.user.gid;
  if (!isServiceAccount(req) && me !== request.requester && me !== request.approver) throw forbidden('You do not have access to this access request.');
  return request;
};

const portfolioMembershipParam: Finder<Membership> = (req, ctx) => {
  const m = lookup(ctx.store.indexes.memberships, 'portfolio_membership', req.params.portfolio_membership_gid);
  if (m.parentType !== 'portfolio' || m.memberType !== 'user')
    throw new ApiError(404, `portfolio_membership: Unknown object: ${req.params.portfolio_membership_gid}`);
  assertInWorkspace(req, ctx, ctx.store.indexes.portfolios.get(m.parent)?.workspace ?? '');
  return m;
};

const budgetParam = viaProject(
  'budget',
  (s) => s.indexes.budgets,
  (b) => b.parent,
);

function budgetsOfParent(req: ApiRequest, ctx: MockContext): Budget[] {
  const parent = req.query.parent;
  if (parent === undefined || parent === '') throw missingInput('parent');
  visibleProject(req, ctx, parent, 'parent');
  return ctx.store.indexes.list(ctx.store.indexes.budgetsByParent.get(parent), ctx.store.indexes.budgets);
}

const ruleTriggerParam = viaProject(
  'rule_trigger',
  (s) => s.indexes.ruleTriggers,
  (t) => t.project,
);

export const trackingRoutes: Route[] = [
  getOne('/workspaces/:workspace_gid/tasks/custom_id/:custom_id', 'task', taskByCustomId),
  { method: 'GET', path: '/budgets', handler: (req, ctx) => ok(renderMany(req, ctx, budgetsOfParent(req, ctx).map(nodeMaker('budget')))) },
  getOne('/budgets/:budget_gid', 'budget', budgetParam),
  changed('PUT', '/budgets/:budget_gid', 'budget', budgetParam, (b, req) => updateBudget(b, bodyData(req))),
  getOne('/access_requests/:access_request_gid', 'accessRequest', accessRequestParam),
  getOne('/agents/:agent_gid', 'agent', inWorkspace(byGid('agent', (s) => s.indexes.agents))),
  getOne(
    '/goal_relationships/:goal_relationship_gid',
    'goalRelationship',
    viaWorkspace(
      'goal_relationship',
      (s) => s.indexes.goalRelationships,
      (r, s) => s.indexes.goals.get(r.supportedGoal)?.workspace ?? '',
    ),
  ),
  getOne(
    '/project_briefs/:project_brief_gid',
    'projectBrief',
    viaProject(
      'project_brief',
      (s) => s.indexes.projectBriefs,
      (b) => b.project,
    ),
  ),
  getOne(
    '/project_portfolio_settings/:project_portfolio_setting_gid',
    'projectPortfolioSetting',
    viaProject(
      'project_portfolio_setting',
      (s) => s.indexes.projectPortfolioSettings,
      (p) => p.project,
    ),
  ),
  getOne(
    '/rates/:rate_gid',
    'rate',
    viaProject(
      'rate',
      (s) => s.indexes.rates,
      (r) => r.parent,
    ),
  ),
  getOne('/portfolio_memberships/:portfolio_membership_gid', 'portfolioMembership', portfolioMembershipParam),
  getOne(
    '/task_templates/:task_template_gid',
    'taskTemplate',
    viaProject(
      'task_template',
      (s) => s.indexes.taskTemplates,
      (t) => t.project,
    ),
  ),
  getOne('/time_periods/:time_period_gid', 'timePeriod', inWorkspace(byGid('time_period', (s) => s.indexes.timePeriods))),
  getOne(
    '/time_tracking_categories/:time_tracking_category_gid',
    'timeTrackingCategory',
    inWorkspace(byGid('time_tracking_category', (s) => s.indexes.timeTrackingCategories)),
  ),
  getOne('/time_tracking_entries/:time_tracking_entry_gid', 'timeTrackingEntry', (req, ctx) => {
    const entry = byGid('time_tracking_entry', (s) => s.indexes.timeTrackingEntries)(req, ctx);
    assertVisible(req, ctx, 'task', entry.task);
    return entry;
  }),
  getOne(
    '/timesheet_approval_statuses/:timesheet_approval_status_gid',
    'timesheetApprovalStatus',
    inWorkspace(byGid('timesheet_approval_status', (s) => s.indexes.timesheetApprovalStatuses)),
  ),
  {
    method: 'POST',
    path: '/rule_triggers/:rule_trigger_gid/run',
    scope: 'tasks:write',
    handler: (req, ctx) => ok(runRuleTrigger(ctx.store, ruleTriggerParam(req, ctx), bodyData(req), req.caller.user.gid)),
  },
];
