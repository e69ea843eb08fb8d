export { createWorkManagementAdapter, WorkManagementAdapter, type WorkManagementAdapterOptions, type WorkManagementRunStats } from './work-management-adapter';
export { registerWorkManagementWebhook, type WebhookRegistration } from './register-work-management-webhook';
export {
  deleteWorkManagementWebhook,
  listWorkManagementWebhooks,
  webhookWorkspace,
  type WebhookAccess,
  type WorkManagementWebhook,
} from './manage-work-management-webhooks';
export { WORK_MANAGEMENT_SETTINGS, workManagementAdapterFactory } from './work-management-adapter-factory';
export { workManagementCheckpointSchema, type WorkManagementCheckpoint } from './work-management-checkpoint';
export { resolveWorkManagementConfig, workManagementConfigFromEnv, type WorkManagementConfig, type WorkManagementConfigInput } from './work-management-config';
