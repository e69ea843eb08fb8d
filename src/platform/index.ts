export type { ConversationMessage } from './conversation-message';
export { ConversationsClient } from './conversations-client';
export { DataApiClient } from './data-api-client';
export { GatewayFilesClient } from './gateway-files-client';
export { OAuthTokenSource } from './oauth-token-source';
export { PlatformHttp } from './platform-http';
export { computeUsage } from './usage/compute-usage';
export { allOf, anyOf, filterBatches, quote } from './usage/odata-filter';
export type { UsageReport } from './usage/usage-report';
