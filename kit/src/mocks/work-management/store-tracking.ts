/**
 * The tracking store: the resources the seed lists that hang off the others: access requests,
 * agents, budgets and rates, goal relationships, project briefs, rule triggers, task templates,
 * time periods, time tracking categories and entries (and tasks' estimates), timesheet approval
 * statuses. Each keeps its maps and per-parent indexes in the shared `StoreIndexes`.
 */
import type {
  AccessRequest,
  Agent,
  Budget,
  Gid,
  GoalRelationship,
  ProjectBrief,
  Rate,
  ResourceType,
  RuleTrigger,
  TaskTemplate,
  TimePeriod,
  TimeTrackingCategory,
  TimeTrackingEntry,
  TimesheetApprovalStatus,
} from './model-types';
import { type StoreIndexes, isoDate, push } from './store-indexes';

type New<T> = Omit<T, 'gid'>;

export class TrackingStore {
  constructor(private readonly indexes: StoreIndexes) {}

  /** The request goes to the target's owner (a project's or portfolio's), who approves it. */
  addAccessRequest(input: { target: Gid; requester: Gid; message?: string; approvalStatus?: AccessRequest['approvalStatus'] }): AccessRequest {
    const ix = this.indexes;
    const target = ix.projects.get(input.target) ?? ix.portfolios.get(input.target);
    if (!target) throw new Error(`access request: ${input.target} is not a project or portfolio`);
    return this.put(ix.accessRequests, 'access_request', {
      workspace: target.workspace,
      target: input.target,
      requester: input.requester,
      approver: target.owner,
      message: input.message ?? '',
      approvalStatus: input.approvalStatus ?? 'pending',
      createdAt: ix.now(),
    });
  }

  addAgent(input: New<Agent>): Agent {
    return this.put(this.indexes.agents, 'agent', input);
  }

  addGoalRelationship(input: { supportedGoal: Gid; supportingResource: Gid; contributionWeight?: number }): GoalRelationship {
    const subgoal = this.indexes.kindOf(input.supportingResource) === 'goal';
    return this.put(this.indexes.goalRelationships, 'goal_relationship', {
      supportedGoal: input.supportedGoal,
      supportingResource: input.supportingResource,
      resourceSubtype: subgoal ? 'subgoal' : 'supporting_work',
      contributionWeight: input.contributionWeight ?? 0,
    });
  }

  addProjectBrief(input: New<ProjectBrief>): ProjectBrief {
    return this.put(this.indexes.projectBriefs, 'project_brief', input);
  }

  addRate(input: New<Rate>): Rate {
    const rate = this.put(this.indexes.rates, 'rate', input);
    push(this.indexes.ratesByParent, rate.parent, rate.gid);
    return rate;
  }

  addRuleTrigger(input: New<RuleTrigger>): RuleTrigger {
    return this.put(this.indexes.ruleTriggers, 'rule_trigger', input);
  }

  addTaskTemplate(input: { project: Gid; name: string; description?: string; createdBy?: Gid | null }): TaskTemplate {
    return this.put(this.indexes.taskTemplates, 'task_template', {
      project: input.project,
      name: input.name,
      template: { name: input.name, description: input.description ?? '' },
      createdBy: input.createdBy ?? null,
      createdAt: this.indexes.now(),
    });
  }

  addTimePeriod(input: New<TimePeriod>): TimePeriod {
    return this.put(this.indexes.timePeriods, 'time_period', input);
  }

  addTimeTrackingCategory(input: { workspace: Gid; name: string; color?: string; isArchived?: boolean }): TimeTrackingCategory {
    return this.put(this.indexes.timeTrackingCategories, 'time_tracking_category', {
      workspace: input.workspace,
      name: input.name,
      color: input.color ?? 'none',
      isArchived: input.isArchived ?? false,
    });
  }

  /** Time logged on a task, attributed to the task's first project unless told. */
  addTimeTrackingEntry(input: {
    task: Gid;
    createdBy: Gid;
    durationMinutes: number;
    billableStatus?: TimeTrackingEntry['billableStatus'];
    attributableTo?: Gid | null;
    category?: Gid | null;
    description?: string;
    enteredOn?: string;
  }): TimeTrackingEntry {
    const ix = this.indexes;
    const task = ix.tasks.get(input.task);
    const entry = this.put(ix.timeTrackingEntries, 'time_tracking_entry', {
      task: input.task,
      attributableTo: input.attributableTo ?? task?.memberships[0]?.project ?? null,
      durationMinutes: input.durationMinutes,
      enteredOn: input.enteredOn ?? isoDate(ix.now()),
      billableStatus: input.billableStatus ?? 'billable',
      category: input.category ?? null,
      description: input.description ?? '',
      createdBy: input.createdBy,
      createdAt: ix.now(),
    });
    push(ix.timeEntriesByTask, entry.task, entry.gid);
    return entry;
  }

  setEstimate(task: Gid, minutes: number): void {
    this.indexes.estimatedMinutesByTask.set(task, minutes);
  }

  addTimesheetApprovalStatus(input: New<TimesheetApprovalStatus>): TimesheetApprovalStatus {
    return this.put(this.indexes.timesheetApprovalStatuses, 'timesheet_approval_status', input);
  }

  addBudget(input: {
    parent: Gid;
    budgetType: Budget['budgetType'];
    total?: number | null;
    actualBillableStatusFilter?: Budget['actualBillableStatusFilter'];
  }): Budget {
    const totals = { time: null, cost: null, [input.budgetType]: input.total ?? null } as Budget['totals'];
    const budget = this.put(this.indexes.budgets, 'budget', {
      parent: input.parent,
      budgetType: input.budgetType,
      totals,
      actualBillableStatusFilter: input.actualBillableStatusFilter ?? 'any',
    });
    push(this.indexes.budgetsByParent, budget.parent, budget.gid);
    return budget;
  }

  private put<T extends { gid: Gid }>(map: Map<Gid, T>, kind: ResourceType, fields: New<T>): T {
    const record = { gid: this.indexes.nextGid(kind), ...fields } as T;
    map.set(record.gid, record);
    return record;
  }
}
