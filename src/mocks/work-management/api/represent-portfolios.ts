/** Wire representations of portfolios, their project settings, goals, project templates, jobs and organization exports. */
import type { Goal, Portfolio, ProjectPortfolioSetting, ProjectTemplate, StatusUpdate } from '../model';
import type { ExportFile, Job, OrganizationExport } from '../rules/jobs';
import { htmlBody, iso, nodeOf, node, nodeMaker, refs, userRef, type Node, type NodeSpec, type RenderContext } from './render-node';
import { latestStatusUpdate } from './represent-projects';

export const portfolioSpec: NodeSpec<Portfolio> = {
  compact: ['gid', 'resource_type', 'name'],
  full: ['gid', 'resource_type', 'name', 'color', 'created_at', 'created_by', 'custom_field_settings', 'current_status_update', 'due_on', 'start_on', 'members', 'owner', 'permalink_url', 'privacy_setting', 'public', 'workspace', 'default_access_level'],
  fields: {
    gid: (p) => p.gid,
    resource_type: () => 'portfolio',
    name: (p) => p.name,
    color: (p) => p.color,
    created_at: (p) => iso(p.createdAt),
    created_by: (p, rc) => userRef(rc, p.owner),
    custom_field_settings: (p, rc) => rc.ctx.store.settingsOf(p.gid).map(nodeMaker('customFieldSetting')),
    current_status_update: (p, rc) => latestStatusUpdate(rc, p.gid),
    due_on: () => null,
    start_on: () => null,
    members: (p, rc) => refs(rc.ctx.store.projectUserMembers(p.gid), (g) => rc.ctx.store.users.get(g), nodeMaker('user')),
    owner: (p, rc) => userRef(rc, p.owner),
    permalink_url: (p, rc) => `${rc.ctx.webBaseUrl}/0/portfolio/${p.gid}`,
    privacy_setting: (p) => p.privacySetting,
    public: (p) => p.privacySetting === 'public_to_domain',
    workspace: (p, rc) => nodeOf(rc, p.workspace),
    default_access_level: () => 'viewer',
    archived: (p) => p.archived,
  },
};

export const projectPortfolioSettingSpec: NodeSpec<ProjectPortfolioSetting> = {
  compact: ['gid', 'resource_type', 'project', 'portfolio', 'is_access_control_inherited'],
  full: ['gid', 'resource_type', 'project', 'portfolio', 'is_access_control_inherited'],
  fields: {
    gid: (s) => s.gid,
    resource_type: () => 'project_portfolio_setting',
    project: (s, rc) => nodeOf(rc, s.project),
    portfolio: (s, rc) => nodeOf(rc, s.portfolio),
    is_access_control_inherited: (s) => s.isAccessControlInherited,
  },
};

export const goalSpec: NodeSpec<Goal> = {
  compact: ['gid', 'resource_type', 'name', 'owner'],
  full: ['gid', 'resource_type', 'name', 'owner', 'notes', 'due_on', 'start_on', 'is_workspace_level', 'team', 'workspace', 'followers', 'status', 'privacy_setting', 'time_period', 'current_status_update', 'metric'],
  fields: {
    gid: (g) => g.gid,
    resource_type: () => 'goal',
    name: (g) => g.name,
    owner: (g, rc) => userRef(rc, g.owner),
    notes: () => '',
    due_on: () => null,
    start_on: () => null,
    is_workspace_level: (g) => g.isWorkspaceLevel,
    team: (g, rc) => (g.team ? nodeOf(rc, g.team) : null),
    workspace: (g, rc) => nodeOf(rc, g.workspace),
    followers: (g, rc) => refs(g.followers, (x) => rc.ctx.store.users.get(x), nodeMaker('user')),
    status: (g, rc) => {
      const last = latestStatusUpdate(rc, g.gid);
      return last ? (rc.ctx.store.statusUpdates.get((last.obj as StatusUpdate).gid)?.statusType ?? null) : null;
    },
    privacy_setting: (g) => g.privacySetting,
    time_period: () => null,
    current_status_update: (g, rc) => latestStatusUpdate(rc, g.gid),
    metric: () => null,
  },
};

export const projectTemplateSpec: NodeSpec<ProjectTemplate> = {
  compact: ['gid', 'resource_type', 'name'],
  full: ['gid', 'resource_type', 'name', 'description', 'html_description', 'owner', 'team', 'public', 'requested_dates', 'requested_roles', 'color'],
  fields: {
    gid: (t) => t.gid,
    resource_type: () => 'project_template',
    name: (t) => t.name,
    description: (t) => t.description,
    html_description: (t) => htmlBody(t.description),
    owner: (t, rc) => userRef(rc, t.owner),
    team: (t, rc) => nodeOf(rc, t.team),
    public: (t) => t.public,
    requested_dates: (t) => t.requestedDates.map((d) => ({ ...d })),
    requested_roles: (t) => t.requestedRoles.map((r) => ({ ...r })),
    color: (t) => t.color,
  },
};

export const exportFileSpec: NodeSpec<{ file: ExportFile; ready: boolean }> = {
  compact: ['gid', 'resource_type', 'created_at', 'completed_at', 'download_url'],
  full: ['gid', 'resource_type', 'created_at', 'completed_at', 'download_url'],
  fields: {
    gid: (e) => e.file.gid,
    resource_type: (e) => e.file.kind,
    created_at: (e) => iso(e.file.createdAt),
    completed_at: (e, rc) => (e.ready ? iso(rc.ctx.store.now()) : null),
    download_url: (e, rc) => (e.ready ? rc.ctx.downloads.url(rc.origin, 'exports', e.file.gid, rc.ctx.hostility().exportUrlTtlMs) : null),
  },
};

export const jobSpec: NodeSpec<Job> = {
  compact: ['gid', 'resource_type', 'resource_subtype', 'status', 'new_project', 'new_task', 'new_project_template', 'new_graph_export', 'new_resource_export'],
  full: ['gid', 'resource_type', 'resource_subtype', 'status', 'new_project', 'new_task', 'new_project_template', 'new_graph_export', 'new_resource_export'],
  fields: {
    gid: (j) => j.gid,
    resource_type: () => 'job',
    resource_subtype: (j) => j.subtype,
    status: (j, rc) => rc.ctx.jobs.status(j),
    new_project: (j, rc) => (j.newProject ? nodeOf(rc, j.newProject) : null),
    new_task: (j, rc) => (j.newTask ? nodeOf(rc, j.newTask) : null),
    new_project_template: () => null,
    new_graph_export: (j, rc) => exportOf(rc, j, 'graph_export'),
    new_resource_export: (j, rc) => exportOf(rc, j, 'resource_export'),
  },
};

function exportOf(rc: RenderContext, job: Job, kind: ExportFile['kind']): Node | null {
  const file = job.exportGid ? rc.ctx.jobs.files.get(job.exportGid) : undefined;
  if (!file || file.kind !== kind) return null;
  return node('exportFile', { file, ready: rc.ctx.jobs.status(job) === 'succeeded' });
}

export const organizationExportSpec: NodeSpec<OrganizationExport> = {
  compact: ['gid', 'resource_type', 'created_at', 'download_url', 'state', 'organization'],
  full: ['gid', 'resource_type', 'created_at', 'download_url', 'state', 'organization'],
  fields: {
    gid: (e) => e.gid,
    resource_type: () => 'organization_export',
    created_at: (e) => iso(e.createdAt),
    download_url: (e, rc) => (rc.ctx.jobs.organizationExportState(e) === 'finished' ? rc.ctx.downloads.url(rc.origin, 'exports', e.gid, rc.ctx.hostility().exportUrlTtlMs) : null),
    state: (e, rc) => rc.ctx.jobs.organizationExportState(e),
    organization: (e, rc) => nodeOf(rc, e.organization),
  },
};
