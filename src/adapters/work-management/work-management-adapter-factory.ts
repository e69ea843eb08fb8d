import type { AdapterFactory } from '../adapter-factory';

/** The work-management adapter's settings, as the environment spells them (shown by `--help` and the README). */
export const WORK_MANAGEMENT_SETTINGS = [
  {
    env: 'WORK_MANAGEMENT_BASE_URL',
    description: 'Base URL of the work-management API, e.g. https://app.example.com/api/1.0 (required).',
  },
  {
    env: 'WORK_MANAGEMENT_TOKEN',
    description:
      'Bearer token (secret; never logged). A service account token sees the whole organization; a personal token only what its user sees (required).',
  },
  { env: 'WORK_MANAGEMENT_WORKSPACE', description: 'Gid of the workspace to sync.', default: 'the first organization workspace' },
  { env: 'WORK_MANAGEMENT_SOURCE_NAME', description: 'Source name: the id prefix of everything synced from this workspace.', default: 'work-management' },
  { env: 'WORK_MANAGEMENT_CONCURRENCY', description: 'Requests in flight at once (each may be a batch of up to 10 reads).', default: '4' },
  { env: 'WORK_MANAGEMENT_TEMPLATE', description: 'Mustache template a task is rendered with.', default: 'templates/html/task.mustache' },
  {
    env: 'WORK_MANAGEMENT_EVENT_STREAMS',
    description:
      'Change feed of incremental runs: `workspace` (one workspace stream; needs an Enterprise+ service account), `projects` (one stream per project), or `auto` (the workspace stream when the service offers it).',
    default: 'auto',
  },
] as const;

/**
 * `work-management`: one workspace of the work-management API (tasks as pages, attachments as
 * files, teams and projects as groups). The registry loads only this file; `create` loads the
 * adapter when it runs.
 */
export const workManagementAdapterFactory: AdapterFactory = {
  name: 'work-management',
  description:
    'One workspace of the work-management API: tasks as HTML pages, PDF/DOCX/PPTX/TXT attachments as files, users, and the workspace, teams, portfolios and projects as groups; incremental through its events streams.',
  settings: WORK_MANAGEMENT_SETTINGS,
  create: async (env) => {
    const { workManagementConfigFromEnv } = await import('./work-management-config');
    const { WorkManagementAdapter } = await import('./work-management-adapter');
    return new WorkManagementAdapter(workManagementConfigFromEnv(env));
  },
};
