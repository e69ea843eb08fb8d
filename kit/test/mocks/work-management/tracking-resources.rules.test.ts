/**
 * Issue 33 point 8: the resources the seed lists beyond the core ones, read by gid (compact in
 * collections, full on a single GET, `opt_fields` widening), a task by its custom id, the budgets
 * of a parent, and running a rule trigger. Each `describe` is named after the seed's rule.
 */
import { handBuiltOrg, manualClock, member, startMock, type RunningMock } from './mock-harness';

const clock = manualClock(Date.UTC(2025, 6, 1, 15));
let m: RunningMock;
type Ids = Record<
  | 'org'
  | 'team'
  | 'alice'
  | 'bob'
  | 'carol'
  | 'stranger'
  | 'project'
  | 'secret'
  | 'task'
  | 'otherTask'
  | 'portfolio'
  | 'portfolioMembership'
  | 'setting'
  | 'goal'
  | 'subgoal'
  | 'relGoal'
  | 'relProject'
  | 'accessRequest'
  | 'agent'
  | 'brief'
  | 'rate'
  | 'taskTemplate'
  | 'fy'
  | 'q1'
  | 'category'
  | 'entry'
  | 'timesheet'
  | 'timeBudget'
  | 'costBudget'
  | 'completeRule'
  | 'commentRule',
  string
>;
let ids: Ids;

beforeAll(async () => {
  const { organization, built } = handBuiltOrg((s, org): Ids => {
    const alice = member(s, org, 'Alice Track');
    const bob = member(s, org, 'Bob Track');
    const carol = member(s, org, 'Carol Track');
    const plain = s.people.addWorkspace({ name: 'Elsewhere', isOrganization: false });
    const stranger = s.people.addUser({ name: 'Stranger', email: 'stranger@elsewhere.example' }).gid;
    s.people.addWorkspaceMembership({ user: stranger, workspace: plain.gid });
    const team = s.people.addTeam({ workspace: org, name: 'Delivery' }).gid;
    const project = s.projects.add({ workspace: org, team, name: 'Website', owner: alice });
    const secret = s.projects.add({ workspace: org, team, name: 'Secret', owner: alice, privacySetting: 'private' });
    s.projects.addMembership({ parent: secret.gid, member: alice });
    const task = s.tasks.add({ workspace: org, name: 'Design', memberships: [{ project: project.gid }], assignee: bob, customId: 'WEB-1' });
    const other = s.tasks.add({ workspace: org, name: 'Build', memberships: [{ project: project.gid }], assignee: carol, customId: 'WEB-2' });
    s.tasks.add({ workspace: org, name: 'Hidden', memberships: [{ project: secret.gid }], customId: 'SEC-1' });
    const portfolio = s.catalog.addPortfolio({ workspace: org, name: 'Programme', owner: alice });
    const portfolioMembership = s.projects.addMembership({ parent: portfolio.gid, member: bob, accessLevel: 'editor' }).gid;
    const setting = s.catalog.addProjectPortfolioSetting({ project: project.gid, portfolio: portfolio.gid, isAccessControlInherited: true }).gid;
    const goal = s.catalog.addGoal({ workspace: org, name: 'Ship the site', owner: alice });
    const subgoal = s.catalog.addGoal({ workspace: org, name: 'Design done', owner: bob });
    const t = s.tracking;
    const rate = t.addRate({ parent: project.gid, resource: bob, rate: 60, currencyCode: 'EUR', createdBy: alice }).gid;
    t.addRate({ parent: project.gid, resource: carol, rate: 90, currencyCode: 'EUR', createdBy: alice });
    t.setEstimate(task.gid, 120);
    t.setEstimate(other.gid, 60);
    const category = t.addTimeTrackingCategory({ workspace: org, name: 'Design work', color: 'blue' }).gid;
    const entry = t.addTimeTrackingEntry({
      task: task.gid,
      createdBy: bob,
      durationMinutes: 90,
      billableStatus: 'billable',
      category,
      description: 'Mock-ups',
    }).gid;
    t.addTimeTrackingEntry({ task: other.gid, createdBy: carol, durationMinutes: 30, billableStatus: 'non_billable' });
    const fy = t.addTimePeriod({ workspace: org, period: 'FY', displayName: 'FY 25', startOn: '2025-01-01', endOn: '2025-12-31', parent: null }).gid;
    const q1 = t.addTimePeriod({ workspace: org, period: 'Q1', displayName: 'Q1 FY 25', startOn: '2025-01-01', endOn: '2025-03-31', parent: fy }).gid;
    return {
      org,
      team,
      alice,
      bob,
      carol,
      stranger,
      project: project.gid,
      secret: secret.gid,
      task: task.gid,
      otherTask: other.gid,
      portfolio: portfolio.gid,
      portfolioMembership,
      setting,
      goal: goal.gid,
      subgoal: subgoal.gid,
      relGoal: t.addGoalRelationship({ supportedGoal: goal.gid, supportingResource: subgoal.gid, contributionWeight: 0.5 }).gid,
      relProject: t.addGoalRelationship({ supportedGoal: goal.gid, supportingResource: project.gid }).gid,
      accessRequest: t.addAccessRequest({ target: secret.gid, requester: bob, message: 'May I join?' }).gid,
      agent: t.addAgent({ workspace: org, name: 'Triage helper', description: 'Sorts incoming requests.', agentType: 'built_in' }).gid,
      brief: t.addProjectBrief({ project: secret.gid, title: 'Why', text: 'Because <it> matters' }).gid,
      rate,
      taskTemplate: t.addTaskTemplate({ project: project.gid, name: 'Bug report', description: 'Steps to reproduce', createdBy: alice }).gid,
      fy,
      q1,
      category,
      entry,
      timesheet: t.addTimesheetApprovalStatus({ workspace: org, user: bob, startDate: '2025-06-23', endDate: '2025-06-29', approvalStatus: 'submitted' }).gid,
      timeBudget: t.addBudget({ parent: project.gid, budgetType: 'time', total: 600 }).gid,
      costBudget: t.addBudget({ parent: project.gid, budgetType: 'cost', total: 5000, actualBillableStatusFilter: 'billable' }).gid,
      completeRule: t.addRuleTrigger({ workspace: org, project: project.gid, name: 'Close on deploy', action: { kind: 'complete_task' } }).gid,
      commentRule: t.addRuleTrigger({ workspace: org, project: secret.gid, name: 'Note a build', action: { kind: 'add_comment', text: 'Build passed' } }).gid,
    };
  }, clock.now);
  m = await startMock({ organization, now: clock.now });
  ids = built;
});
afterAll(() => m.close());

const as = (user: string) => m.mock.tokenFor(user);

describe('custom_id: a generated custom identifier of a task reads the task', () => {
  it('the task of a custom id in a workspace, full; unknown ids 404; what the reader may not see 403', async () => {
    const res = await m.api(`/workspaces/${ids.org}/tasks/custom_id/WEB-1`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ gid: ids.task, resource_type: 'task', name: 'Design', assignee: { gid: ids.bob } });
    const narrow = await m.api(`/workspaces/${ids.org}/tasks/custom_id/WEB-1?opt_fields=name`);
    expect(narrow.body.data).toEqual({ gid: ids.task, name: 'Design' });
    expect((await m.api(`/workspaces/${ids.org}/tasks/custom_id/WEB-99`)).status).toBe(404);
    expect((await m.api(`/workspaces/${ids.org}/tasks/custom_id/SEC-1`, { token: as(ids.bob) })).status).toBe(403);
    expect((await m.api(`/workspaces/${ids.org}/tasks/custom_id/SEC-1`, { token: as(ids.alice) })).status).toBe(200);
    expect((await m.api(`/workspaces/${ids.org}/tasks/custom_id/WEB-1`, { token: as(ids.stranger) })).status).toBe(403);
  });
});

describe('Budget: time in minutes or cost in currency; estimate, actual and total value objects', () => {
  it('the budgets of a parent are listed compact; a budget reads full with its three value objects', async () => {
    const list = await m.api(`/budgets?parent=${ids.project}`);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      { gid: ids.timeBudget, resource_type: 'budget', budget_type: 'time', parent: { gid: ids.project, resource_type: 'project', name: 'Website' } },
      { gid: ids.costBudget, resource_type: 'budget', budget_type: 'cost', parent: { gid: ids.project, resource_type: 'project', name: 'Website' } },
    ]);
    expect((await m.api('/budgets')).status).toBe(400);
    expect((await m.api(`/budgets?parent=${ids.secret}`, { token: as(ids.bob) })).status).toBe(403);
    const time = (await m.api(`/budgets/${ids.timeBudget}`)).body.data;
    // estimate: 120 + 60 minutes; actual: every logged minute (filter any); total: the target
    expect(time.estimate).toEqual({ value: 180, units: 'minutes' });
    expect(time.actual).toEqual({ value: 120, units: 'minutes', billable_status_filter: 'any' });
    expect(time.total).toEqual({ value: 600, units: 'minutes' });
  });

  it('cost = estimated time times resource rate; actual counts the billable status filter', async () => {
    const cost = (await m.api(`/budgets/${ids.costBudget}`)).body.data;
    // Bob's 120 min at 60/h + Carol's 60 min at 90/h; actual: Bob's billable 90 min at 60/h
    expect(cost.estimate).toEqual({ value: 210, units: 'EUR' });
    expect(cost.actual).toEqual({ value: 90, units: 'EUR', billable_status_filter: 'billable' });
    const widened = await m.api(`/budgets?parent=${ids.project}&opt_fields=total.value`);
    expect(widened.body.data).toEqual([
      { gid: ids.timeBudget, total: { value: 600 } },
      { gid: ids.costBudget, total: { value: 5000 } },
    ]);
  });

  it('the total is stored independently per budget type: switching type keeps each value', async () => {
    const put = (data: Record<string, unknown>) => m.api(`/budgets/${ids.timeBudget}`, { method: 'PUT', body: { data } });
    expect((await put({ budget_type: 'cost' })).body.data).toMatchObject({ budget_type: 'cost', total: { value: null, units: 'EUR' } });
    expect((await put({ total: { value: 1200 } })).body.data.total).toEqual({ value: 1200, units: 'EUR' });
    expect((await put({ budget_type: 'time' })).body.data.total).toEqual({ value: 600, units: 'minutes' });
    expect((await put({ budget_type: 'cost' })).body.data.total).toEqual({ value: 1200, units: 'EUR' });
    expect((await put({ budget_type: 'money' })).status).toBe(400);
    expect((await put({ actual: { billable_status_filter: 'sometimes' } })).status).toBe(400);
    await put({ budget_type: 'time' });
  });
});

describe('access request: sent to the item owner for approval', () => {
  it('the requester and the owner read it, full; anyone else 403', async () => {
    const owner = await m.api(`/access_requests/${ids.accessRequest}`, { token: as(ids.alice) });
    expect(owner.status).toBe(200);
    expect(owner.body.data).toMatchObject({
      gid: ids.accessRequest,
      resource_type: 'access_request',
      approval_status: 'pending',
      requester: { gid: ids.bob },
      target: { gid: ids.secret },
      message: 'May I join?',
    });
    expect((await m.api(`/access_requests/${ids.accessRequest}`, { token: as(ids.bob) })).status).toBe(200);
    expect((await m.api(`/access_requests/${ids.accessRequest}`, { token: as(ids.carol) })).status).toBe(403);
    expect((await m.api(`/access_requests/${ids.accessRequest}?opt_fields=approval_status`)).body.data).toEqual({
      gid: ids.accessRequest,
      approval_status: 'pending',
    });
  });
});

describe('agent: built-in, provided by apps, or system-defined', () => {
  it('reads full in its workspace; outsiders 403', async () => {
    const res = await m.api(`/agents/${ids.agent}`);
    expect(res.body.data).toEqual({
      gid: ids.agent,
      resource_type: 'agent',
      name: 'Triage helper',
      description: 'Sorts incoming requests.',
      agent_type: 'built_in',
      workspace: { gid: ids.org, resource_type: 'workspace', name: 'Hand Org' },
    });
    expect((await m.api(`/agents/${ids.agent}`, { token: as(ids.stranger) })).status).toBe(403);
  });
});

describe('goal relationship: links a goal to another goal, a project, a task or a portfolio', () => {
  it('a subgoal and a supporting project, each naming the goal it supports', async () => {
    const sub = (await m.api(`/goal_relationships/${ids.relGoal}`)).body.data;
    expect(sub).toMatchObject({
      resource_subtype: 'subgoal',
      supporting_resource: { gid: ids.subgoal },
      contribution_weight: 0.5,
      supported_goal: { gid: ids.goal },
    });
    const work = (await m.api(`/goal_relationships/${ids.relProject}`)).body.data;
    expect(work).toMatchObject({ resource_subtype: 'supporting_work', supporting_resource: { gid: ids.project, resource_type: 'project' } });
    expect((await m.api(`/goal_relationships/${ids.relGoal}`, { token: as(ids.stranger) })).status).toBe(403);
    expect((await m.api('/goal_relationships/999')).status).toBe(404);
  });
});

describe('project brief: a rich text document describing a project (a preview)', () => {
  it('reads full (text and html_text) for who may see the project; compact is the gid', async () => {
    const res = await m.api(`/project_briefs/${ids.brief}`, { token: as(ids.alice) });
    expect(res.body.data).toMatchObject({
      gid: ids.brief,
      resource_type: 'project_brief',
      title: 'Why',
      text: 'Because <it> matters',
      html_text: '<body>Because &lt;it&gt; matters</body>',
      project: { gid: ids.secret },
    });
    expect((await m.api(`/project_briefs/${ids.brief}`, { token: as(ids.bob) })).status).toBe(403);
  });
});

describe('project portfolio setting: whether portfolio members inherit access to the project', () => {
  it('reads with is_access_control_inherited', async () => {
    const res = await m.api(`/project_portfolio_settings/${ids.setting}`);
    expect(res.body.data).toMatchObject({
      gid: ids.setting,
      resource_type: 'project_portfolio_setting',
      project: { gid: ids.project },
      portfolio: { gid: ids.portfolio },
      is_access_control_inherited: true,
    });
  });
});

describe('rate: the rate of a resource for a parent object', () => {
  it('compact is the gid; full names parent, resource, rate and currency', async () => {
    expect((await m.api(`/rates/${ids.rate}?opt_fields=rate,currency_code`)).body.data).toEqual({ gid: ids.rate, rate: 60, currency_code: 'EUR' });
    const full = (await m.api(`/rates/${ids.rate}`)).body.data;
    expect(full).toMatchObject({ resource_type: 'rate', parent: { gid: ids.project }, resource: { gid: ids.bob }, rate: 60, currency_code: 'EUR' });
  });
});

describe('portfolio membership: whether a user belongs to a portfolio', () => {
  it('reads with the portfolio, the user and the access level; a project membership is not one', async () => {
    const res = await m.api(`/portfolio_memberships/${ids.portfolioMembership}`);
    expect(res.body.data).toEqual({
      gid: ids.portfolioMembership,
      resource_type: 'portfolio_membership',
      portfolio: { gid: ids.portfolio, resource_type: 'portfolio', name: 'Programme' },
      user: { gid: ids.bob, resource_type: 'user', name: 'Bob Track' },
      access_level: 'editor',
    });
    expect((await m.api(`/portfolio_memberships/${ids.portfolioMembership}`, { token: as(ids.stranger) })).status).toBe(403);
  });
});

describe('task template: contained within one project', () => {
  it('names its project and what a task made from it gets', async () => {
    const res = await m.api(`/task_templates/${ids.taskTemplate}`);
    expect(res.body.data).toMatchObject({
      resource_type: 'task_template',
      name: 'Bug report',
      project: { gid: ids.project },
      template: { name: 'Bug report', description: 'Steps to reproduce' },
      created_by: { gid: ids.alice },
    });
  });
});

describe('time period: a domain-scoped date range usable on goals', () => {
  it('reads with its dates and parent period; outside the domain 403', async () => {
    const res = await m.api(`/time_periods/${ids.q1}`);
    expect(res.body.data).toEqual({
      gid: ids.q1,
      resource_type: 'time_period',
      display_name: 'Q1 FY 25',
      end_on: '2025-03-31',
      start_on: '2025-01-01',
      period: 'Q1',
      parent: { gid: ids.fy, resource_type: 'time_period', display_name: 'FY 25', end_on: '2025-12-31', start_on: '2025-01-01', period: 'FY' },
    });
    expect((await m.api(`/time_periods/${ids.q1}`, { token: as(ids.stranger) })).status).toBe(403);
  });
});

describe('time tracking category and entry: workspace-scoped labels; actual time recorded on tasks', () => {
  it('a category reads in its workspace; an entry reads for who may see its task', async () => {
    expect((await m.api(`/time_tracking_categories/${ids.category}`)).body.data).toMatchObject({
      resource_type: 'time_tracking_category',
      name: 'Design work',
      color: 'blue',
      is_archived: false,
    });
    expect((await m.api(`/time_tracking_categories/${ids.category}`, { token: as(ids.stranger) })).status).toBe(403);
    const entry = (await m.api(`/time_tracking_entries/${ids.entry}`)).body.data;
    expect(entry).toMatchObject({
      resource_type: 'time_tracking_entry',
      duration_minutes: 90,
      task: { gid: ids.task },
      attributable_to: { gid: ids.project },
      billable_status: 'billable',
      category: { gid: ids.category },
      created_by: { gid: ids.bob },
    });
  });
});

describe('timesheet approval status: one of draft, submitted, approved, rejected', () => {
  it('reads with the user, the date range and the status; no transitions are served', async () => {
    const res = await m.api(`/timesheet_approval_statuses/${ids.timesheet}`);
    expect(res.body.data).toMatchObject({ approval_status: 'submitted', start_date: '2025-06-23', end_date: '2025-06-29', user: { gid: ids.bob } });
    expect(['draft', 'submitted', 'approved', 'rejected']).toContain(res.body.data.approval_status);
    const put = await m.api(`/timesheet_approval_statuses/${ids.timesheet}`, { method: 'PUT', body: { data: { approval_status: 'approved' } } });
    expect(put.status).toBe(404);
  });
});

describe('rule: an incoming web request can be a generic trigger', () => {
  it("running a trigger applies the rule's action to a task of its project", async () => {
    const run = await m.api(`/rule_triggers/${ids.completeRule}/run`, { body: { data: { resource: ids.task, action_data: { build: 42 } } } });
    expect(run.status).toBe(200);
    expect(typeof run.body.data.message).toBe('string');
    expect((await m.api(`/tasks/${ids.task}?opt_fields=completed`)).body.data).toEqual({ gid: ids.task, completed: true });
  });

  it('a comment action adds a story; the resource must be a task of the rule\u2019s project', async () => {
    const hidden = (await m.api(`/workspaces/${ids.org}/tasks/custom_id/SEC-1`)).body.data.gid;
    expect((await m.api(`/rule_triggers/${ids.commentRule}/run`, { body: { data: { resource: hidden } } })).status).toBe(200);
    const stories = (await m.api(`/tasks/${hidden}/stories?opt_fields=text`)).body.data;
    expect(stories).toContainEqual(expect.objectContaining({ text: 'Build passed' }));
    expect((await m.api(`/rule_triggers/${ids.commentRule}/run`, { body: { data: { resource: ids.task } } })).status).toBe(400);
    expect((await m.api(`/rule_triggers/${ids.commentRule}/run`, { body: { data: {} } })).status).toBe(400);
    expect((await m.api(`/rule_triggers/${ids.commentRule}/run`, { body: { data: { resource: hidden } }, token: as(ids.bob) })).status).toBe(403);
  });
});
