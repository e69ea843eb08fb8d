/**
 * Budgets (seed "Budget"): a budget for a parent (a project), of `budget_type` `time` (values in
 * minutes) or `cost` (values in the domain's currency), with three value objects `{value, units,
 * billable_status_filter?}`:
 * - `estimate`: the estimates of the parent's tasks added up; as cost, each task's estimated time
 *   times the rate of its assignee for the parent;
 * - `actual`: the time logged on the parent's tasks and attributed to the parent, of the billable
 *   status `billable_status_filter` picks (`billable`, `non_billable`, `any`); as cost, each entry's
 *   time times the rate of who logged it;
 * - `total`: the user-defined target, kept per budget type: switching `budget_type` keeps each
 *   type's value (`PUT /budgets/{gid} {budget_type?, total?: {value}, actual?: {billable_status_filter}}`).
 * The domain's currency is the currency of the parent's rates (`USD` when it has none).
 */
import { badRequest } from '../api/api-error';
import type { Budget, BudgetType, Gid, StoreIndexes } from '../model';

export interface BudgetValue {
  value: number | null;
  units: string;
  billable_status_filter?: Budget['actualBillableStatusFilter'];
}

const BUDGET_TYPES: readonly BudgetType[] = ['time', 'cost'];
const FILTERS: readonly Budget['actualBillableStatusFilter'][] = ['billable', 'non_billable', 'any'];

function currencyOf(ix: StoreIndexes, parent: Gid): string {
  const first = ix.list(ix.ratesByParent.get(parent), ix.rates)[0];
  return first?.currencyCode ?? 'USD';
}

/** The hourly rate of `resource` for `parent` (0 when none is set). */
function rateOf(ix: StoreIndexes, parent: Gid, resource: Gid | null): number {
  if (!resource) return 0;
  return ix.list(ix.ratesByParent.get(parent), ix.rates).find((r) => r.resource === resource)?.rate ?? 0;
}

function unitsOf(ix: StoreIndexes, budget: Budget): string {
  return budget.budgetType === 'time' ? 'minutes' : currencyOf(ix, budget.parent);
}

function round(value: number): number {
  return Math.round(value * 100) / 100;
}

export function budgetEstimate(ix: StoreIndexes, budget: Budget): BudgetValue {
  let value = 0;
  for (const task of ix.list(ix.tasksByProject.get(budget.parent), ix.tasks)) {
    const minutes = ix.estimatedMinutesByTask.get(task.gid) ?? 0;
    value += budget.budgetType === 'time' ? minutes : (minutes / 60) * rateOf(ix, budget.parent, task.assignee);
  }
  return { value: round(value), units: unitsOf(ix, budget) };
}

export function budgetActual(ix: StoreIndexes, budget: Budget): BudgetValue {
  const filter = budget.actualBillableStatusFilter;
  let value = 0;
  for (const task of ix.tasksByProject.get(budget.parent) ?? [])
    for (const entry of ix.list(ix.timeEntriesByTask.get(task), ix.timeTrackingEntries)) {
      if (entry.attributableTo !== budget.parent || (filter !== 'any' && entry.billableStatus !== filter)) continue;
      value += budget.budgetType === 'time' ? entry.durationMinutes : (entry.durationMinutes / 60) * rateOf(ix, budget.parent, entry.createdBy);
    }
  return { value: round(value), units: unitsOf(ix, budget), billable_status_filter: filter };
}

export function budgetTotal(ix: StoreIndexes, budget: Budget): BudgetValue {
  return { value: budget.totals[budget.budgetType], units: unitsOf(ix, budget) };
}

function objectField(data: Record<string, unknown>, field: string): Record<string, unknown> | undefined {
  const v = data[field];
  if (v === undefined) return undefined;
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw badRequest(`${field}: Value is not an object`);
  return v as Record<string, unknown>;
}

/** Applies an update: the type first, then the total of the (new) type, then the actual filter. */
export function updateBudget(budget: Budget, data: Record<string, unknown>): void {
  const type = data.budget_type;
  if (type !== undefined && !BUDGET_TYPES.includes(type as BudgetType)) throw badRequest(`budget_type: must be one of ${BUDGET_TYPES.join(', ')}`);
  const total = objectField(data, 'total');
  const value = total?.value;
  if (value !== undefined && value !== null && (typeof value !== 'number' || value < 0)) throw badRequest('total.value: Not a non-negative number');
  const filter = objectField(data, 'actual')?.billable_status_filter;
  if (filter !== undefined && !FILTERS.includes(filter as Budget['actualBillableStatusFilter']))
    throw badRequest(`actual.billable_status_filter: must be one of ${FILTERS.join(', ')}`);
  if (type !== undefined) budget.budgetType = type as BudgetType;
  if (value !== undefined) budget.totals[budget.budgetType] = value as number | null;
  if (filter !== undefined) budget.actualBillableStatusFilter = filter as Budget['actualBillableStatusFilter'];
}
