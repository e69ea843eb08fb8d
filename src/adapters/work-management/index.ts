import type { AdapterFactory } from '../adapter-factory';
import { WorkManagementAdapter } from './work-management-adapter';
import { WORK_MANAGEMENT_SETTINGS, workManagementConfigFromEnv } from './work-management-config';

export { createWorkManagementAdapter, WorkManagementAdapter, type WorkManagementAdapterOptions, type WorkManagementRunStats } from './work-management-adapter';
export { registerWorkManagementWebhook, type WebhookRegistration } from './register-work-management-webhook';
export {
  deleteWorkManagementWebhook,
  listWorkManagementWebhooks,
  webhookWorkspace,
  type WebhookAccess,
  type WorkManagementWebhook,
} from './manage-work-management-webhooks';
export { workManagementCheckpointSchema, type WorkManagementCheckpoint } from './work-management-checkpoint';
export { resolveWorkManagementConfig, workManagementConfigFromEnv, type WorkManagementConfig, type WorkManagementConfigInput } from './work-management-config';

/** `work-management`: one workspace of the work-management API (tasks as pages, attachments as files, teams and projects as groups). */
export const workManagementAdapterFactory: AdapterFactory = {
  name: 'work-management',
  description:
    'One workspace of the work-management API: tasks as HTML pages, PDF/DOCX/PPTX/TXT attachments as files, users, and the workspace, teams, portfolios and projects as groups; incremental through its events streams.',
  settings: WORK_MANAGEMENT_SETTINGS.map((s) => ({ ...s })),
  create: (env) => new WorkManagementAdapter(workManagementConfigFromEnv(env)),
};
