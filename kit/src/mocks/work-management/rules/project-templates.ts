/**
 * Project templates (seed: "A project template belongs to one team; the team cannot be changed
 * through the API"; "instantiating a project from a template ... returns a job"):
 * - `POST /project_templates/{gid}/instantiateProject {name, team?, public?, is_strict?,
 *   requested_dates?: [{gid, value}], requested_roles?: [{gid, value}]}` returns 201 with a job
 *   (`resource_subtype: instantiate_project`) whose `new_project` exists at once, named, in the
 *   template's team (or `team`, which must be a team of the same organization) but empty until the
 *   job succeeds: then it has the template's sections and tasks, each due date counted from the
 *   start date (the first requested date) and each role's task assigned to the user given for it;
 * - every requested date is a `YYYY-MM-DD`; an unknown date or role gid, or a role given to
 *   someone outside the workspace, is 400; with `is_strict` a date left out is 422, without it the
 *   date defaults to today;
 * - the caller owns the new project; the role users become members.
 */
import { ApiError, badRequest, missingInput, notFound } from '../api/api-error';
import type { Gid, Project, ProjectTemplate, WorkManagementStore } from '../model';
import { isoDate } from '../model';
import type { Job, JobRegistry } from './jobs';

const DAY = 86_400_000;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

export interface InstantiationPlan {
  name: string;
  team: Gid;
  privacy: Project['privacySetting'];
  /** Requested date gid → epoch ms (UTC midnight). */
  dates: Map<string, number>;
  /** Requested role gid → user gid. */
  roles: Map<string, Gid>;
}

function entries(raw: unknown, field: string): Array<{ gid: string; value: unknown }> {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw badRequest(`${field}: Value is not an array`);
  return raw.map((e: unknown) => {
    if (typeof e !== 'object' || e === null || typeof (e as { gid?: unknown }).gid !== 'string') throw badRequest(`${field}: each entry is {gid, value}`);
    return e as { gid: string; value: unknown };
  });
}

/** Validates an instantiation request against its template, changing nothing. */
export function planInstantiation(store: WorkManagementStore, template: ProjectTemplate, data: Record<string, unknown>): InstantiationPlan {
  const name = typeof data.name === 'string' ? data.name.trim() : '';
  if (!name) throw missingInput('name');
  let team = template.team;
  if (data.team !== undefined && data.team !== null && data.team !== '') {
    const t = store.indexes.teams.get(String(data.team));
    if (!t) throw notFound('team', String(data.team));
    if (t.workspace !== template.workspace) throw badRequest("team: The team is not in the template's organization");
    team = t.gid;
  }
  const dates = new Map<string, number>();
  for (const { gid, value } of entries(data.requested_dates, 'requested_dates')) {
    if (!template.requestedDates.some((d) => d.gid === gid)) throw badRequest(`requested_dates: ${gid} is not a date variable of this template`);
    if (typeof value !== 'string' || !DATE.test(value) || Number.isNaN(Date.parse(value)))
      throw badRequest(`requested_dates: ${String(value)} is not a date (YYYY-MM-DD)`);
    dates.set(gid, Date.parse(value));
  }
  const missing = template.requestedDates.filter((d) => !dates.has(d.gid));
  if (missing.length > 0 && data.is_strict === true)
    throw new ApiError(422, `requested_dates: No value for ${missing.map((d) => `${d.name} (${d.gid})`).join(', ')}`);
  const today = Date.parse(isoDate(store.indexes.now()));
  for (const d of missing) dates.set(d.gid, today);
  const roles = new Map<string, Gid>();
  for (const { gid, value } of entries(data.requested_roles, 'requested_roles')) {
    if (!template.requestedRoles.some((r) => r.gid === gid)) throw badRequest(`requested_roles: ${gid} is not a role of this template`);
    const user = typeof value === 'string' ? value : '';
    if (!store.indexes.users.has(user)) throw badRequest(`requested_roles: Not a recognized ID: ${user}`);
    if (!store.people.workspaceMembership(user, template.workspace)) throw badRequest(`requested_roles: User ${user} is not a member of this workspace`);
    roles.set(gid, user);
  }
  const privacy = data.public === false ? 'private' : 'public_to_workspace';
  return { name, team, privacy, dates, roles };
}

/** Starts the job: the project exists now, its sections and tasks arrive when the job succeeds. */
export function instantiateProject(store: WorkManagementStore, jobs: JobRegistry, template: ProjectTemplate, data: Record<string, unknown>, caller: Gid): Job {
  const plan = planInstantiation(store, template, data);
  const owner = store.people.workspaceMembership(caller, template.workspace) ? caller : null;
  const project = store.projects.add({
    workspace: template.workspace,
    team: plan.team,
    name: plan.name,
    privacySetting: plan.privacy,
    owner,
    color: template.color,
  });
  const job = jobs.newJob('instantiate_project', caller, template.workspace, { newProject: project.gid });
  job.onComplete = () => {
    if (!store.indexes.projects.has(project.gid)) return;
    const start = plan.dates.get(template.requestedDates[0]?.gid ?? '') ?? Date.parse(isoDate(store.indexes.now()));
    for (const user of new Set(plan.roles.values()))
      store.projects.addMembership({ parent: project.gid, member: user, accessLevel: project.defaultAccessLevel });
    for (const section of template.sections) {
      const s = store.projects.addSection({ project: project.gid, name: section.name });
      for (const t of section.tasks) {
        const assignee = t.role ? (plan.roles.get(t.role) ?? null) : null;
        store.tasks.add({
          workspace: project.workspace,
          name: t.name,
          memberships: [{ project: project.gid, section: s.gid }],
          assignee,
          followers: assignee ? [assignee] : [],
          dueOn: t.dueOffsetDays === null ? null : isoDate(start + t.dueOffsetDays * DAY),
          createdBy: owner,
        });
      }
    }
  };
  return job;
}
