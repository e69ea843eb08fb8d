/**
 * Wire representations of the tracking resources: access requests, agents, budgets, goal
 * relationships, portfolio memberships, project briefs, rates, task templates, time periods, time
 * tracking categories and entries, timesheet approval statuses. The seed names their meaning and
 * (budgets, timesheet statuses) some fields; the rest follow the reference's schemas.
 */
import type {
  AccessRequest,
  Agent,
  Budget,
  GoalRelationship,
  Membership,
  ProjectBrief,
  Rate,
  TaskTemplate,
  TimePeriod,
  TimeTrackingCategory,
  TimeTrackingEntry,
  TimesheetApprovalStatus,
} from '../model';
import { budgetActual, budgetEstimate, budgetTotal } from '../rules/budgets';
import { isoAt, namedSpec, prop, refAt, resourceSpec, userAt } from './field-specs';
import { htmlBody, type NodeSpec } from './render-node';

export const accessRequestSpec: NodeSpec<AccessRequest> = resourceSpec<AccessRequest>('access_request', {
  compact: ['approval_status', 'requester', 'target'],
  more: ['message', 'created_at'],
  fields: {
    approval_status: prop('approvalStatus'),
    requester: userAt('requester'),
    target: refAt('target'),
    message: prop('message'),
    created_at: isoAt('createdAt'),
  },
});

export const agentSpec: NodeSpec<Agent> = namedSpec<Agent>('agent', ['description', 'agent_type', 'workspace'], {
  description: prop('description'),
  agent_type: prop('agentType'),
  workspace: refAt('workspace'),
});

export const budgetSpec: NodeSpec<Budget> = resourceSpec<Budget>('budget', {
  compact: ['budget_type', 'parent'],
  more: ['estimate', 'actual', 'total'],
  fields: {
    budget_type: prop('budgetType'),
    parent: refAt('parent'),
    estimate: (b, rc) => budgetEstimate(rc.ctx.store.indexes, b),
    actual: (b, rc) => budgetActual(rc.ctx.store.indexes, b),
    total: (b, rc) => budgetTotal(rc.ctx.store.indexes, b),
  },
});

export const goalRelationshipSpec: NodeSpec<GoalRelationship> = resourceSpec<GoalRelationship>('goal_relationship', {
  compact: ['resource_subtype', 'supporting_resource', 'contribution_weight'],
  more: ['supported_goal'],
  fields: {
    resource_subtype: prop('resourceSubtype'),
    supporting_resource: refAt('supportingResource'),
    contribution_weight: prop('contributionWeight'),
    supported_goal: refAt('supportedGoal'),
  },
});

/** The deprecated portfolio membership schema: a user's membership of a portfolio. */
export const portfolioMembershipSpec: NodeSpec<Membership> = resourceSpec<Membership>('portfolio_membership', {
  compact: ['portfolio', 'user'],
  more: ['access_level'],
  fields: { portfolio: refAt('parent'), user: refAt('member'), access_level: prop('accessLevel') },
});

export const projectBriefSpec: NodeSpec<ProjectBrief> = resourceSpec<ProjectBrief>('project_brief', {
  compact: [],
  more: ['title', 'text', 'html_text', 'project', 'permalink_url'],
  fields: {
    title: prop('title'),
    text: prop('text'),
    html_text: (b) => htmlBody(b.text),
    project: refAt('project'),
    permalink_url: (b, rc) => `${rc.ctx.webBaseUrl}/0/${b.project}/brief`,
  },
});

export const rateSpec: NodeSpec<Rate> = resourceSpec<Rate>('rate', {
  compact: [],
  more: ['parent', 'resource', 'rate', 'currency_code', 'created_by'],
  fields: { parent: refAt('parent'), resource: refAt('resource'), rate: prop('rate'), currency_code: prop('currencyCode'), created_by: userAt('createdBy') },
});

export const taskTemplateSpec: NodeSpec<TaskTemplate> = namedSpec<TaskTemplate>('task_template', ['project', 'template', 'created_by', 'created_at'], {
  project: refAt('project'),
  template: prop('template'),
  created_by: userAt('createdBy'),
  created_at: isoAt('createdAt'),
});

export const timePeriodSpec: NodeSpec<TimePeriod> = resourceSpec<TimePeriod>('time_period', {
  compact: ['display_name', 'end_on', 'start_on', 'period'],
  more: ['parent'],
  fields: { display_name: prop('displayName'), end_on: prop('endOn'), start_on: prop('startOn'), period: prop('period'), parent: refAt('parent') },
});

export const timeTrackingCategorySpec: NodeSpec<TimeTrackingCategory> = namedSpec<TimeTrackingCategory>(
  'time_tracking_category',
  ['color', 'is_archived', 'workspace'],
  { color: prop('color'), is_archived: prop('isArchived'), workspace: refAt('workspace') },
);

export const timeTrackingEntrySpec: NodeSpec<TimeTrackingEntry> = resourceSpec<TimeTrackingEntry>('time_tracking_entry', {
  compact: ['duration_minutes', 'entered_on', 'created_by', 'attributable_to'],
  more: ['task', 'billable_status', 'category', 'description', 'created_at'],
  fields: {
    duration_minutes: prop('durationMinutes'),
    entered_on: prop('enteredOn'),
    created_by: userAt('createdBy'),
    attributable_to: refAt('attributableTo'),
    task: refAt('task'),
    billable_status: prop('billableStatus'),
    category: refAt('category'),
    description: prop('description'),
    created_at: isoAt('createdAt'),
  },
});

export const timesheetApprovalStatusSpec: NodeSpec<TimesheetApprovalStatus> = resourceSpec<TimesheetApprovalStatus>('timesheet_approval_status', {
  compact: ['approval_status', 'start_date', 'end_date', 'user'],
  more: ['workspace'],
  fields: {
    approval_status: prop('approvalStatus'),
    start_date: prop('startDate'),
    end_date: prop('endDate'),
    user: userAt('user'),
    workspace: refAt('workspace'),
  },
});
