/**
 * Running a rule trigger (seed: "rule: Automation made of triggers and actions; an incoming web
 * request can be a generic trigger"): `POST /rule_triggers/{gid}/run {data: {resource, action_data?}}`
 * applies the rule's action to `resource`, a task of the rule's project (400 otherwise: missing,
 * not a task, or not in the project), through the task store, so the change is an event like any
 * other. `action_data` is kept by the real service for the rule's actions; the mock's actions
 * (complete the task, add a comment) take none. The answer's shape is not in the seed: `{data:
 * {message}}`.
 */
import { badRequest, missingInput } from '../api/api-error';
import type { Gid, RuleTrigger, Task, WorkManagementStore } from '../model';

export function runRuleTrigger(store: WorkManagementStore, trigger: RuleTrigger, data: Record<string, unknown>, caller: Gid): { message: string } {
  const gid = data.resource;
  if (gid === undefined || gid === null || gid === '') throw missingInput('resource');
  const task = store.indexes.tasks.get(String(gid));
  if (!task) throw badRequest(`resource: ${String(gid)} is not a task`);
  if (!task.memberships.some((m) => m.project === trigger.project)) throw badRequest(`resource: The task is not in the rule's project ${trigger.project}`);
  if (data.action_data !== undefined && (typeof data.action_data !== 'object' || data.action_data === null || Array.isArray(data.action_data)))
    throw badRequest('action_data: Value is not an object');
  apply(store, trigger, task, caller);
  return { message: `Triggered rule ${trigger.name} on task ${task.gid}` };
}

function apply(store: WorkManagementStore, trigger: RuleTrigger, task: Task, caller: Gid): void {
  const action = trigger.action;
  if (action.kind === 'add_comment') {
    store.tasks.addStory({ target: task.gid, text: action.text, createdBy: caller, source: 'api' });
    return;
  }
  if (task.completed) return;
  task.completed = true;
  task.completedAt = store.indexes.now();
  store.tasks.touch(task, { field: 'completed', action: 'changed', new_value: true });
}
