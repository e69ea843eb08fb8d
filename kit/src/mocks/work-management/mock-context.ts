/** Everything a route handler may use, built once per mock by create-mock-server. */
import type { PageTokens } from './api/pagination';
import type { ApiRequest, ApiResponse, RouteSpec } from './api/api-request';
import type { DocumentCache } from './documents/document-cache';
import type { FaultInjector, Hostility, RateLimiter } from './hostility';
import type { Gid, WorkManagementStore } from './model';
import type { TokenRegistry } from './rules/access-tokens';
import type { DownloadSigner } from './rules/download-urls';
import type { SyncTokens } from './rules/events';
import type { JobRegistry } from './rules/jobs';
import type { WebhookRegistry } from './rules/webhooks';
import type { VisibilityOracle } from './visibility-oracle';

export interface MockContext {
  store: WorkManagementStore;
  oracle: VisibilityOracle;
  /** Current hostility settings (mutable at run time through /_admin/hostility). */
  hostility(): Hostility;
  setHostility(patch: Partial<Hostility>): Hostility;
  limiter: RateLimiter;
  faults: FaultInjector;
  pageTokens: PageTokens;
  syncTokens: SyncTokens;
  downloads: DownloadSigner;
  documents: DocumentCache;
  jobs: JobRegistry;
  webhooks: WebhookRegistry;
  routes: RouteMatcher;
  /** Bearer token → user gid, with each token's kind, scopes and expiry. */
  tokens: TokenRegistry;
  serviceAccount: Gid;
  /** Base of the web app links (`permalink_url`, `permanent_url`); never fetched by the mock. */
  webBaseUrl: string;
}

/** A route's handler: the request, and everything of the mock it may use. */
export type Handler = (req: ApiRequest, ctx: MockContext) => ApiResponse | Promise<ApiResponse>;

/** The route table (api/route-table.ts) as dispatch uses it: the route a request names, with its path parameters. */
export interface RouteMatcher {
  match(method: string, path: string): { route: RouteSpec & { handler: Handler }; params: Record<string, string> };
}
