/**
 * Jobs (seed: work done asynchronously returns a job; reference §8):
 * - task and project duplication, instantiating a project from a template, graph exports and
 *   resource exports return a job whose `status` goes `not_started` → `in_progress` →
 *   `succeeded` as the clock advances (`jobDurationMs`);
 * - a duplicated or instantiated object exists from the start but is only complete once the job
 *   has succeeded (its properties may be inconsistent between polls until then; templates:
 *   rules/project-templates.ts);
 * - only the creator of a duplication can read its job;
 * - graph and resource export jobs carry `new_graph_export` / `new_resource_export` with a
 *   `download_url` (gzip JSON, gzip JSON Lines) once succeeded; one resource export may be in
 *   progress per workspace (a second gets 403);
 * - organization exports have their own object whose `state` goes `pending` → `started` →
 *   `finished`, with `download_url` once finished;
 * - which plans may export at all: rules/plan-tiers.ts.
 */
import zlib from 'node:zlib';
import { ApiError, badRequest, notFound } from '../api/api-error';
import type { Gid, Project, Task, WorkManagementStore } from '../model';
import { assertGraphExportAllowed, assertOrganizationExportAllowed, assertResourceExportAllowed } from './plan-tiers';

export type JobSubtype = 'duplicate_task' | 'duplicate_project' | 'instantiate_project' | 'graph_export_request' | 'resource_export_request';
export type JobStatus = 'not_started' | 'in_progress' | 'succeeded' | 'failed';

export interface Job {
  gid: Gid;
  subtype: JobSubtype;
  createdBy: Gid;
  createdAt: number;
  durationMs: number;
  workspace: Gid;
  newTask?: Gid;
  newProject?: Gid;
  /** For export jobs: the gid of the export object carried as new_graph_export / new_resource_export. */
  exportGid?: Gid;
  completedAt: number | null;
  /** Runs once, when the job is first seen at or past its end. */
  onComplete?: () => void;
}

export interface ExportFile {
  gid: Gid;
  kind: 'graph_export' | 'resource_export' | 'organization_export';
  createdAt: number;
  build: () => Buffer;
  bytes: Buffer | null;
}

export interface OrganizationExport {
  gid: Gid;
  organization: Gid;
  createdBy: Gid;
  createdAt: number;
  durationMs: number;
}

export class JobRegistry {
  readonly jobs = new Map<Gid, Job>();
  readonly files = new Map<Gid, ExportFile>();
  readonly organizationExports = new Map<Gid, OrganizationExport>();

  constructor(
    private readonly store: WorkManagementStore,
    private readonly durationMs: () => number,
  ) {}

  status(job: Job): JobStatus {
    const elapsed = this.store.indexes.now() - job.createdAt;
    if (elapsed >= job.durationMs) {
      if (job.completedAt === null) {
        job.completedAt = job.createdAt + job.durationMs;
        job.onComplete?.();
      }
      return 'succeeded';
    }
    return elapsed < job.durationMs / 4 ? 'not_started' : 'in_progress';
  }

  organizationExportState(e: OrganizationExport): 'pending' | 'started' | 'finished' {
    const elapsed = this.store.indexes.now() - e.createdAt;
    if (elapsed >= e.durationMs) return 'finished';
    return elapsed < e.durationMs / 4 ? 'pending' : 'started';
  }

  fileBytes(gid: Gid): Buffer | undefined {
    const file = this.files.get(gid);
    if (!file) return undefined;
    file.bytes ??= file.build();
    return file.bytes;
  }

  /** A job that succeeds after `jobDurationMs`; `onComplete` (in `extra`) finishes the work then. */
  newJob(subtype: JobSubtype, createdBy: Gid, workspace: Gid, extra: Partial<Job> = {}): Job {
    const job: Job = {
      gid: this.store.indexes.nextGid('job'),
      subtype,
      createdBy,
      createdAt: this.store.indexes.now(),
      durationMs: this.durationMs(),
      workspace,
      completedAt: null,
      ...extra,
    };
    this.jobs.set(job.gid, job);
    return job;
  }

  private newFile(kind: ExportFile['kind'], build: () => Buffer): ExportFile {
    const file: ExportFile = { gid: this.store.indexes.nextGid('job'), kind, createdAt: this.store.indexes.now(), build, bytes: null };
    this.files.set(file.gid, file);
    return file;
  }

  duplicateTask(task: Task, data: Record<string, unknown>, caller: Gid): Job {
    const s = this.store;
    const name = typeof data.name === 'string' && data.name.trim() ? data.name : `Duplicate of ${task.name}`;
    const include = includeList(data.include);
    const copy = s.tasks.add({ workspace: task.workspace, name, followers: [caller], createdBy: caller });
    const job = this.newJob('duplicate_task', caller, task.workspace, { newTask: copy.gid });
    job.onComplete = () => {
      const target = s.indexes.tasks.get(copy.gid);
      if (!target) return;
      this.copyTaskDetails(task, target, include, caller);
    };
    return job;
  }

  private copyTaskDetails(source: Task, target: Task, include: Set<string>, caller: Gid): void {
    const s = this.store;
    if (include.has('notes')) target.notes = s.tasks.notes(source);
    if (include.has('dates')) {
      target.dueOn = source.dueOn;
      target.startOn = source.startOn;
    }
    if (include.has('assignee')) s.tasks.setAssignee(target, source.assignee);
    if (include.has('followers')) s.tasks.addFollowers(target, source.followers);
    if (include.has('projects')) for (const m of source.memberships) s.tasks.addToProject(target, m.project, m.section);
    if (include.has('tags')) for (const tag of source.tags) s.tasks.tag(target, tag);
    if (include.has('parent') && source.parent && !target.parent) {
      s.tasks.makeSubtask(target, source.parent);
    }
    if (include.has('subtasks')) {
      for (const sub of s.indexes.list(s.indexes.subtasksByTask.get(source.gid), s.indexes.tasks))
        s.tasks.add({ workspace: target.workspace, name: sub.name, parent: target.gid, followers: [caller], createdBy: caller });
    }
    if (include.has('attachments')) {
      for (const a of s.indexes.list(s.indexes.attachmentsByParent.get(source.gid), s.indexes.attachments))
        s.tasks.addAttachment({ parent: target.gid, name: a.name, host: a.host, kind: a.kind, createdBy: caller });
    }
    target.modifiedAt = s.indexes.now();
  }

  duplicateProject(project: Project, data: Record<string, unknown>, caller: Gid): Job {
    const s = this.store;
    const name = typeof data.name === 'string' && data.name.trim() ? data.name : undefined;
    if (!name) throw badRequest('name: Missing input');
    let team = project.team;
    if (typeof data.team === 'string') {
      const t = s.indexes.teams.get(data.team);
      if (!t || t.workspace !== project.workspace) throw notFound('team', data.team);
      team = t.gid;
    }
    const include = includeList(data.include);
    const copy = s.projects.add({
      workspace: project.workspace,
      team,
      name,
      privacySetting: project.privacySetting,
      owner: caller,
      color: project.color,
      customType: project.customType,
    });
    const job = this.newJob('duplicate_project', caller, project.workspace, { newProject: copy.gid });
    job.onComplete = () => {
      if (!s.indexes.projects.has(copy.gid)) return;
      if (include.has('notes')) copy.notes = project.notes;
      if (include.has('members'))
        for (const m of s.projects.memberships(project.gid)) s.projects.addMembership({ parent: copy.gid, member: m.member, accessLevel: m.accessLevel });
      for (const setting of s.catalog.settingsOf(project.gid))
        s.catalog.addCustomFieldSetting({ field: setting.field, parent: copy.gid, isImportant: setting.isImportant });
      const sectionMap = new Map<Gid, Gid>();
      for (const section of s.indexes.list(s.indexes.sectionsByProject.get(project.gid), s.indexes.sections))
        sectionMap.set(section.gid, s.projects.addSection({ project: copy.gid, name: section.name }).gid);
      for (const t of s.indexes.list(s.indexes.tasksByProject.get(project.gid), s.indexes.tasks)) {
        if (t.parent) continue;
        const section = t.memberships.find((m) => m.project === project.gid)?.section;
        s.tasks.add({
          workspace: t.workspace,
          name: t.name,
          memberships: [{ project: copy.gid, section: section ? (sectionMap.get(section) ?? null) : null }],
          notes: include.has('task_notes') ? s.tasks.notes(t) : '',
          assignee: include.has('task_assignee') ? t.assignee : null,
          followers: include.has('task_followers') ? t.followers : [caller],
          dueOn: include.has('task_dates') ? t.dueOn : null,
          createdBy: caller,
        });
      }
    };
    return job;
  }

  graphExport(parent: Gid, caller: Gid): Job {
    const s = this.store;
    const kind = s.indexes.kindOf(parent);
    if (kind !== 'team' && kind !== 'portfolio' && kind !== 'project' && kind !== 'goal')
      throw badRequest('parent: must be a team, portfolio, project or goal');
    const workspace =
      s.indexes.teams.get(parent)?.workspace ??
      s.indexes.portfolios.get(parent)?.workspace ??
      s.indexes.projects.get(parent)?.workspace ??
      s.indexes.goals.get(parent)?.workspace ??
      '';
    const ws = s.indexes.workspaces.get(workspace);
    if (ws) assertGraphExportAllowed(ws);
    const file = this.newFile('graph_export', () => gzipJson(graphOf(s, parent)));
    return this.newJob('graph_export_request', caller, workspace, { exportGid: file.gid });
  }

  resourceExport(data: Record<string, unknown>, caller: Gid): Job {
    const s = this.store;
    const workspace = typeof data.workspace === 'string' ? data.workspace : undefined;
    if (!workspace) throw badRequest('workspace: Missing input');
    const ws = s.indexes.workspaces.get(workspace);
    if (!ws) throw notFound('workspace', workspace);
    assertResourceExportAllowed(ws);
    const busy = [...this.jobs.values()].some((j) => j.subtype === 'resource_export_request' && j.workspace === workspace && this.status(j) !== 'succeeded');
    if (busy) throw new ApiError(403, 'A resource export is already in progress for this workspace.');
    const params = Array.isArray(data.export_request_parameters)
      ? (data.export_request_parameters as Array<Record<string, unknown>>)
      : [{ resource_type: 'task' }];
    for (const p of params)
      if (!['task', 'team', 'message'].includes(String(p.resource_type)))
        throw badRequest('export_request_parameters.resource_type: must be task, team or message');
    const file = this.newFile('resource_export', () => gzipLines(resourceLines(s, workspace, params)));
    return this.newJob('resource_export_request', caller, workspace, { exportGid: file.gid });
  }

  organizationExport(organization: Gid, caller: Gid): OrganizationExport {
    const s = this.store;
    const ws = s.indexes.workspaces.get(organization);
    if (!ws) throw notFound('organization', organization);
    if (!ws.isOrganization) throw badRequest('organization: must be an organization, not a plain workspace');
    assertOrganizationExportAllowed(ws);
    const e: OrganizationExport = {
      gid: s.indexes.nextGid('organization_export'),
      organization,
      createdBy: caller,
      createdAt: s.indexes.now(),
      durationMs: this.durationMs(),
    };
    this.organizationExports.set(e.gid, e);
    this.files.set(e.gid, {
      gid: e.gid,
      kind: 'organization_export',
      createdAt: e.createdAt,
      build: () => gzipJson(organizationOf(s, organization)),
      bytes: null,
    });
    return e;
  }
}

function includeList(raw: unknown): Set<string> {
  if (Array.isArray(raw)) return new Set(raw.map(String));
  if (typeof raw === 'string')
    return new Set(
      raw
        .split(',')
        .map((x) => x.trim())
        .filter(Boolean),
    );
  return new Set();
}

function gzipJson(value: unknown): Buffer {
  return zlib.gzipSync(Buffer.from(JSON.stringify(value)));
}

function gzipLines(lines: Iterable<unknown>): Buffer {
  const parts: string[] = [];
  for (const line of lines) parts.push(JSON.stringify(line));
  return zlib.gzipSync(Buffer.from(parts.length ? `${parts.join('\n')}\n` : ''));
}

const iso = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

function taskRecord(s: WorkManagementStore, t: Task): Record<string, unknown> {
  return {
    gid: t.gid,
    resource_type: 'task',
    name: t.name,
    notes: s.tasks.notes(t),
    assignee: t.assignee ? { gid: t.assignee, resource_type: 'user' } : null,
    followers: t.followers.map((gid) => ({ gid, resource_type: 'user' })),
    projects: t.memberships.map((m) => ({ gid: m.project, resource_type: 'project' })),
    parent: t.parent ? { gid: t.parent, resource_type: 'task' } : null,
    completed: t.completed,
    created_at: iso(t.createdAt),
    modified_at: iso(t.modifiedAt),
    stories: s.indexes.list(s.indexes.storiesByTask.get(t.gid), s.indexes.stories).map((st) => ({
      gid: st.gid,
      type: st.type,
      text: s.tasks.storyText(st),
      created_at: iso(st.createdAt),
      created_by: st.createdBy ? { gid: st.createdBy } : null,
    })),
    // Exported attachments carry no download_url or view_url (reference §8).
    attachments: s.indexes.list(s.indexes.attachmentsByParent.get(t.gid), s.indexes.attachments).map((a) => ({ gid: a.gid, name: a.name, host: a.host })),
  };
}

function graphOf(s: WorkManagementStore, parent: Gid): unknown {
  const projectGraph = (p: Project): unknown => ({
    gid: p.gid,
    resource_type: 'project',
    name: p.name,
    sections: s.indexes.list(s.indexes.sectionsByProject.get(p.gid), s.indexes.sections).map((x) => ({ gid: x.gid, name: x.name })),
    tasks: s.indexes.list(s.indexes.tasksByProject.get(p.gid), s.indexes.tasks).map((t) => taskRecord(s, t)),
  });
  const team = s.indexes.teams.get(parent);
  if (team)
    return {
      gid: team.gid,
      resource_type: 'team',
      name: team.name,
      projects: s.indexes.list(s.indexes.projectsByTeam.get(team.gid), s.indexes.projects).map(projectGraph),
    };
  const portfolio = s.indexes.portfolios.get(parent);
  if (portfolio)
    return {
      gid: portfolio.gid,
      resource_type: 'portfolio',
      name: portfolio.name,
      items: s.indexes.list(portfolio.items, s.indexes.projects).map(projectGraph),
    };
  const project = s.indexes.projects.get(parent);
  if (project) return projectGraph(project);
  const goal = s.indexes.goals.get(parent);
  return goal ? { gid: goal.gid, resource_type: 'goal', name: goal.name } : {};
}

function* resourceLines(s: WorkManagementStore, workspace: Gid, params: Array<Record<string, unknown>>): Generator<unknown> {
  for (const p of params) {
    const filters = (p.filters ?? {}) as Record<string, unknown>;
    const after = (k: string): number | undefined => (typeof filters[k] === 'string' ? Date.parse(filters[k] as string) : undefined);
    if (p.resource_type === 'task') {
      const createdAfter = after('created_at.after');
      const createdBefore = after('created_at.before');
      const modifiedAfter = after('modified_at.after');
      const modifiedBefore = after('modified_at.before');
      const assignees = Array.isArray(filters['assignee.any']) ? (filters['assignee.any'] as unknown[]).map(String) : undefined;
      for (const t of s.indexes.list(s.indexes.tasksByWorkspace.get(workspace), s.indexes.tasks)) {
        if (createdAfter !== undefined && t.createdAt <= createdAfter) continue;
        if (createdBefore !== undefined && t.createdAt >= createdBefore) continue;
        if (modifiedAfter !== undefined && t.modifiedAt <= modifiedAfter) continue;
        if (modifiedBefore !== undefined && t.modifiedAt >= modifiedBefore) continue;
        if (assignees && (!t.assignee || !assignees.includes(t.assignee))) continue;
        yield taskRecord(s, t);
      }
    } else if (p.resource_type === 'team') {
      for (const team of s.indexes.list(s.indexes.teamsByWorkspace.get(workspace), s.indexes.teams)) {
        yield {
          gid: team.gid,
          resource_type: 'team',
          name: team.name,
          members: s.indexes
            .list(s.indexes.teamMembershipsByTeam.get(team.gid), s.indexes.teamMemberships)
            .map((m) => ({ gid: m.user, resource_type: 'user' })),
        };
      }
    }
    // Messages are not modelled: a message export is empty.
  }
}

function organizationOf(s: WorkManagementStore, organization: Gid): unknown {
  const ws = s.indexes.workspaces.get(organization);
  return {
    organization: { gid: organization, name: ws?.name },
    users: s.indexes.list(s.indexes.workspaceMembershipsByWorkspace.get(organization), s.indexes.workspaceMemberships).map((m) => ({
      gid: m.user,
      name: s.indexes.users.get(m.user)?.name,
      email: s.indexes.users.get(m.user)?.email,
      is_active: m.isActive,
      is_guest: m.isGuest,
    })),
    teams: s.indexes.list(s.indexes.teamsByWorkspace.get(organization), s.indexes.teams).map((t) => ({ gid: t.gid, name: t.name, visibility: t.visibility })),
    projects: s.indexes
      .list(s.indexes.projectsByWorkspace.get(organization), s.indexes.projects)
      .map((p) => ({ gid: p.gid, name: p.name, team: p.team, privacy_setting: p.privacySetting, archived: p.archived })),
    tasks: s.indexes.list(s.indexes.tasksByWorkspace.get(organization), s.indexes.tasks).map((t) => taskRecord(s, t)),
  };
}
