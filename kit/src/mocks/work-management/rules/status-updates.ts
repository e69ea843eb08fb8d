/**
 * Status updates and project statuses (seed "Status update" and "Project, section, task rules"):
 * - a status update has text and a `status_type` allowed by its parent: projects and portfolios
 *   take on_track, at_risk, off_track, on_hold, complete, dropped; goals take on_track, at_risk,
 *   off_track, achieved, partial, missed, dropped;
 * - a project status (deprecated) has text and a colour: green (on track), yellow (at risk),
 *   red (behind), blue (on hold);
 * - both can be created and deleted, never modified (there is no update route), and creating
 *   one notifies every follower of the parent.
 */
import { badRequest, missingInput, notFound } from '../api/api-error';
import type { Gid, Project, ProjectStatus, StatusUpdate, WorkManagementStore } from '../model';

export const STATUS_TYPES_BY_PARENT = {
  project: ['on_track', 'at_risk', 'off_track', 'on_hold', 'complete', 'dropped'],
  portfolio: ['on_track', 'at_risk', 'off_track', 'on_hold', 'complete', 'dropped'],
  goal: ['on_track', 'at_risk', 'off_track', 'achieved', 'partial', 'missed', 'dropped'],
} as const;

export const PROJECT_STATUS_COLORS = ['green', 'yellow', 'red', 'blue'] as const;

/** Who "all followers" are for each parent kind. */
export function followersOf(store: WorkManagementStore, parent: Gid): Gid[] {
  const project = store.indexes.projects.get(parent);
  if (project) return project.followers.slice();
  const goal = store.indexes.goals.get(parent);
  if (goal) return goal.followers.slice();
  const portfolio = store.indexes.portfolios.get(parent);
  if (portfolio) return store.projects.userMembers(portfolio.gid);
  return [];
}

export function createStatusUpdate(store: WorkManagementStore, data: Record<string, unknown>, author: Gid | null): StatusUpdate {
  const parent = typeof data.parent === 'string' ? data.parent : undefined;
  if (!parent) throw missingInput('parent');
  const kind = store.indexes.kindOf(parent);
  if (kind !== 'project' && kind !== 'portfolio' && kind !== 'goal') throw notFound('parent', parent);
  const statusType = data.status_type;
  if (statusType === undefined || statusType === null || statusType === '') throw missingInput('status_type');
  const allowed: readonly string[] = STATUS_TYPES_BY_PARENT[kind];
  if (typeof statusType !== 'string' || !allowed.includes(statusType))
    throw badRequest(`status_type: ${String(statusType)} is not allowed for a ${kind}; allowed: ${allowed.join(', ')}`);
  const text = typeof data.text === 'string' ? data.text : '';
  if (!text) throw missingInput('text');
  const update = store.catalog.addStatusUpdate({ parent, statusType, title: typeof data.title === 'string' ? data.title : '', text, author });
  for (const to of followersOf(store, parent)) store.indexes.notifications.push({ to, about: update.gid, kind: 'status_update', at: store.indexes.now() });
  return update;
}

export function createProjectStatus(store: WorkManagementStore, project: Project, data: Record<string, unknown>, author: Gid | null): ProjectStatus {
  const color = data.color;
  if (color === undefined || color === null || color === '') throw missingInput('color');
  if (typeof color !== 'string' || !(PROJECT_STATUS_COLORS as readonly string[]).includes(color))
    throw badRequest(`color: must be one of ${PROJECT_STATUS_COLORS.join(', ')}`);
  const text = typeof data.text === 'string' ? data.text : '';
  if (!text) throw missingInput('text');
  const status = store.catalog.addProjectStatus({
    project: project.gid,
    color: color as ProjectStatus['color'],
    title: typeof data.title === 'string' ? data.title : '',
    text,
    author,
  });
  for (const to of project.followers) store.indexes.notifications.push({ to, about: status.gid, kind: 'project_status', at: store.indexes.now() });
  return status;
}
