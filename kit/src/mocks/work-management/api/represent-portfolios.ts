/** Wire representations of portfolios, their project settings, goals, project templates, jobs and organization exports. */
import type { Goal, Portfolio, ProjectPortfolioSetting, ProjectTemplate, StatusUpdate } from '../model';
import type { ExportFile, Job, OrganizationExport } from '../rules/jobs';
import { fixed, isoAt, namedSpec, prop, refAt, resourceSpec, userAt, usersAt } from './field-specs';
import { htmlBody, iso, node, nodeMaker, refs, type ExportFileState, type Node, type NodeSpec, type RenderContext } from './render-node';
import { latestStatusUpdate } from './represent-projects';

export const portfolioSpec: NodeSpec<Portfolio> = namedSpec<Portfolio>(
  'portfolio',
  [
    'color',
    'created_at',
    'created_by',
    'custom_field_settings',
    'current_status_update',
    'due_on',
    'start_on',
    'members',
    'owner',
    'permalink_url',
    'privacy_setting',
    'public',
    'workspace',
    'default_access_level',
  ],
  {
    color: prop('color'),
    created_at: isoAt('createdAt'),
    created_by: userAt('owner'),
    custom_field_settings: (p, rc) => rc.ctx.store.catalog.settingsOf(p.gid).map(nodeMaker('customFieldSetting')),
    current_status_update: (p, rc) => latestStatusUpdate(rc, p.gid),
    members: (p, rc) => refs(rc.ctx.store.projects.userMembers(p.gid), (g) => rc.ctx.store.indexes.users.get(g), nodeMaker('user')),
    owner: userAt('owner'),
    permalink_url: (p, rc) => `${rc.ctx.webBaseUrl}/0/portfolio/${p.gid}`,
    privacy_setting: prop('privacySetting'),
    public: (p) => p.privacySetting === 'public_to_domain',
    workspace: refAt('workspace'),
    archived: prop('archived'),
    ...fixed({ due_on: null, start_on: null, default_access_level: 'viewer' }),
  },
);

export const projectPortfolioSettingSpec: NodeSpec<ProjectPortfolioSetting> = resourceSpec<ProjectPortfolioSetting>('project_portfolio_setting', {
  compact: ['project', 'portfolio', 'is_access_control_inherited'],
  fields: { project: refAt('project'), portfolio: refAt('portfolio'), is_access_control_inherited: prop('isAccessControlInherited') },
});

export const goalSpec: NodeSpec<Goal> = resourceSpec<Goal>('goal', {
  compact: ['name', 'owner'],
  more: [
    'notes',
    'due_on',
    'start_on',
    'is_workspace_level',
    'team',
    'workspace',
    'followers',
    'status',
    'privacy_setting',
    'time_period',
    'current_status_update',
    'metric',
  ],
  fields: {
    name: prop('name'),
    owner: userAt('owner'),
    is_workspace_level: prop('isWorkspaceLevel'),
    team: refAt('team'),
    workspace: refAt('workspace'),
    followers: usersAt('followers'),
    status: (g, rc) => {
      const last = latestStatusUpdate(rc, g.gid);
      return last ? (rc.ctx.store.indexes.statusUpdates.get((last.obj as StatusUpdate).gid)?.statusType ?? null) : null;
    },
    privacy_setting: prop('privacySetting'),
    current_status_update: (g, rc) => latestStatusUpdate(rc, g.gid),
    ...fixed({ notes: '', due_on: null, start_on: null, time_period: null, metric: null }),
  },
});

export const projectTemplateSpec: NodeSpec<ProjectTemplate> = namedSpec<ProjectTemplate>(
  'project_template',
  ['description', 'html_description', 'owner', 'team', 'public', 'requested_dates', 'requested_roles', 'color'],
  {
    description: prop('description'),
    html_description: (t) => htmlBody(t.description),
    owner: userAt('owner'),
    team: refAt('team'),
    public: prop('public'),
    requested_dates: (t) => t.requestedDates.map((d) => ({ ...d })),
    requested_roles: (t) => t.requestedRoles.map((r) => ({ ...r })),
    color: prop('color'),
  },
);

/** A download URL for a finished export, valid for the hostility's export URL lifetime. */
function exportUrl(rc: RenderContext, gid: string): string {
  return rc.ctx.downloads.url(rc.origin, 'exports', gid, rc.ctx.hostility().exportUrlTtlMs);
}

export const exportFileSpec: NodeSpec<ExportFileState> = {
  compact: ['gid', 'resource_type', 'created_at', 'completed_at', 'download_url'],
  full: ['gid', 'resource_type', 'created_at', 'completed_at', 'download_url'],
  fields: {
    gid: (e) => e.file.gid,
    resource_type: (e) => e.file.kind,
    created_at: (e) => iso(e.file.createdAt),
    completed_at: (e, rc) => (e.ready ? iso(rc.ctx.store.indexes.now()) : null),
    download_url: (e, rc) => (e.ready ? exportUrl(rc, e.file.gid) : null),
  },
};

export const jobSpec: NodeSpec<Job> = resourceSpec<Job>('job', {
  compact: ['resource_subtype', 'status', 'new_project', 'new_task', 'new_project_template', 'new_graph_export', 'new_resource_export'],
  fields: {
    resource_subtype: prop('subtype'),
    status: (j, rc) => rc.ctx.jobs.status(j),
    new_project: refAt('newProject'),
    new_task: refAt('newTask'),
    new_graph_export: (j, rc) => exportOf(rc, j, 'graph_export'),
    new_resource_export: (j, rc) => exportOf(rc, j, 'resource_export'),
    ...fixed({ new_project_template: null }),
  },
});

function exportOf(rc: RenderContext, job: Job, kind: ExportFile['kind']): Node | null {
  const file = job.exportGid ? rc.ctx.jobs.files.get(job.exportGid) : undefined;
  if (!file || file.kind !== kind) return null;
  return node('exportFile', { file, ready: rc.ctx.jobs.status(job) === 'succeeded' });
}

export const organizationExportSpec: NodeSpec<OrganizationExport> = resourceSpec<OrganizationExport>('organization_export', {
  compact: ['created_at', 'download_url', 'state', 'organization'],
  fields: {
    created_at: isoAt('createdAt'),
    download_url: (e, rc) => (rc.ctx.jobs.organizationExportState(e) === 'finished' ? exportUrl(rc, e.gid) : null),
    state: (e, rc) => rc.ctx.jobs.organizationExportState(e),
    organization: refAt('organization'),
  },
});
