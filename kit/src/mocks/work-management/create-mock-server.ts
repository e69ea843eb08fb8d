/**
 * The work-management API mock: a generated organization served over the conventions of the
 * seed and the reference under `/api/1.0`, plus private paths for tests and the end-to-end
 * harness (`/_oracle/...`, `/_admin/...`) and pre-signed downloads (`/_downloads/...`).
 *
 *   const { app, model, oracle, token } = createWorkManagementMock({ seed: 1, size: 'small' });
 *
 * It stands for the outside world and imports nothing from the gateway.
 */
import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import express, { type NextFunction, type Request, type Response } from 'express';
import { ApiError, RATE_LIMIT_MESSAGE, errorBody, phraseFor } from './api/api-error';
import { errorResponse, execute } from './api/dispatch';
import { parseOptFields } from './api/opt-fields';
import { PageTokens } from './api/pagination';
import { RouteTable, type ApiResponse, type HttpMethod } from './api/route-table';
import { MIME_TYPES } from './documents/build-document';
import { DocumentCache } from './documents/document-cache';
import { generateOrganization, type GeneratedOrganization, type SizeSpec } from './generator';
import { DEFAULT_HOSTILITY, FaultInjector, RateLimiter, applyHostility, type Hostility } from './hostility';
import type { MockContext } from './mock-context';
import type { Gid, WorkManagementStore } from './model';
import { TokenRegistry } from './rules/access-tokens';
import { DownloadSigner, s3Error } from './rules/download-urls';
import { SyncTokens } from './rules/events';
import { JobRegistry } from './rules/jobs';
import { adminRouter } from './routes/admin-routes';
import { attachmentRoutes } from './routes/attachment-routes';
import { auditLogRoutes } from './routes/audit-log-routes';
import { batchRoutes } from './routes/batch-routes';
import { catalogRoutes } from './routes/catalog-routes';
import { directoryRoutes } from './routes/directory-routes';
import { eventRoutes } from './routes/event-routes';
import { webhookRoutes } from './routes/webhook-routes';
import { WebhookRegistry } from './rules/webhooks';
import { jobRoutes } from './routes/job-routes';
import { oracleRouter } from './routes/oracle-routes';
import { projectRoutes } from './routes/project-routes';
import { projectTemplateRoutes } from './routes/project-template-routes';
import { storyRoutes } from './routes/story-routes';
import { tagRoutes } from './routes/tag-routes';
import { taskRoutes } from './routes/task-routes';
import { trackingRoutes } from './routes/tracking-routes';
import { createVisibilityOracle, type OracleOptions, type VisibilityOracle } from './visibility-oracle';

export const API_PREFIX = '/api/1.0';

export interface WorkManagementMockOptions {
  seed?: string | number;
  size?: SizeSpec;
  hostility?: Partial<Hostility>;
  /** The clock; `/_admin/clock` and `advanceClock` move an offset on top of it. */
  now?: () => number;
  /** Bearer token of the service account (sees everything). Default: derived from the seed. */
  token?: string;
  oracle?: OracleOptions;
  /** Base of web links (`permalink_url`…); the mock never fetches them. */
  webBaseUrl?: string;
  /** Use an organization built elsewhere (tests build small ones by hand) instead of generating. */
  organization?: GeneratedOrganization;
}

export interface WorkManagementMock {
  app: express.Express;
  model: WorkManagementStore;
  oracle: VisibilityOracle;
  /** The service account's bearer token. */
  token: string;
  organization: GeneratedOrganization;
  context: MockContext;
  /** A bearer token acting as `user` (sees what the oracle says that user sees). */
  tokenFor(user: Gid): string;
  setHostility(patch: Partial<Hostility>): Hostility;
  advanceClock(ms: number): void;
}

export function createWorkManagementMock(options: WorkManagementMockOptions = {}): WorkManagementMock {
  const seed = String(options.seed ?? 1);
  const baseNow = options.now ?? (() => Date.now());
  let offset = 0;
  const now = (): number => baseNow() + offset;
  const organization = options.organization ?? generateOrganization({ seed, size: options.size ?? 'small', now });
  const store = organization.store;
  if (options.organization) store.indexes.setClock(now);
  store.recorder.recording = true;

  let hostility = applyHostility(DEFAULT_HOSTILITY, options.hostility ?? {});
  const secret = crypto.randomBytes(32).toString('hex');
  const token = options.token ?? `wm-${crypto.createHash('sha256').update(`token/${seed}`).digest('hex').slice(0, 32)}`;
  const tokens = new TokenRegistry(now, [[token, organization.serviceAccount]]);
  store.indexes.events.lossRate = hostility.eventLossRate;
  store.indexes.events.seedLoss(hostility.seed);
  const oracle = createVisibilityOracle(store, options.oracle);
  const routes = new RouteTable().add([
    ...directoryRoutes,
    ...projectRoutes,
    ...taskRoutes,
    ...trackingRoutes,
    ...storyRoutes,
    ...tagRoutes,
    ...attachmentRoutes,
    ...catalogRoutes,
    ...jobRoutes,
    ...eventRoutes,
    ...webhookRoutes,
    ...batchRoutes,
    ...auditLogRoutes,
    ...projectTemplateRoutes,
  ]);
  const ctx: MockContext = {
    store,
    oracle,
    hostility: () => hostility,
    setHostility: (patch) => {
      hostility = applyHostility(hostility, patch);
      store.indexes.events.lossRate = hostility.eventLossRate;
      if (patch.seed !== undefined) {
        ctx.faults.reseed(patch.seed);
        store.indexes.events.seedLoss(patch.seed);
      }
      return hostility;
    },
    limiter: new RateLimiter(() => hostility, now),
    faults: new FaultInjector(() => hostility),
    pageTokens: new PageTokens(secret, now, () => hostility.offsetTokenTtlMs),
    syncTokens: new SyncTokens(secret, now, () => hostility.syncTokenTtlMs),
    downloads: new DownloadSigner(secret, now),
    documents: new DocumentCache(store),
    jobs: new JobRegistry(store, () => hostility.jobDurationMs),
    webhooks: new WebhookRegistry(now, () => hostility.webhookRetryDelayMs),
    routes,
    tokens,
    serviceAccount: organization.serviceAccount,
    webBaseUrl: options.webBaseUrl ?? 'https://app.work-management.example',
  };
  store.indexes.events.onKept = (event) => ctx.webhooks.notify(event);
  const tokenFor = (user: Gid): string => {
    if (!store.indexes.users.has(user)) throw new Error(`no user ${user}`);
    for (const [t, u] of tokens) if (u === user) return t;
    const t = `wm-user-${user}-${crypto.randomBytes(8).toString('hex')}`;
    tokens.set(t, user);
    return t;
  };

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use(API_PREFIX, express.json({ limit: '5mb', type: () => true }), jsonErrors, (req: Request, res: Response) => void serveApi(req, res, ctx));
  app.get('/_downloads/:kind/:gid', (req, res) => serveDownload(req, res, ctx));
  app.use('/_oracle', authenticate(ctx), oracleRouter(ctx));
  app.use('/_admin', express.json(), jsonErrors, authenticate(ctx), adminRouter(ctx, { tokenFor, advanceClock: (ms) => (offset += ms) }));
  app.use((_req, res) => sendJson(res, { status: 404, body: errorBody('No matching route for request') }, false));

  return {
    app,
    model: store,
    oracle,
    token,
    organization,
    context: ctx,
    tokenFor,
    setHostility: ctx.setHostility,
    advanceClock: (ms) => {
      offset += ms;
    },
  };
}

/** Malformed JSON fails the whole request with 400 (reference §3). */
function jsonErrors(err: unknown, _req: Request, res: Response, next: NextFunction): void {
  if (err && typeof err === 'object' && 'type' in err && (err as { type: string }).type === 'entity.parse.failed') {
    sendJson(res, { status: 400, body: errorBody('Could not parse request data, invalid JSON') }, false);
    return;
  }
  if (err && typeof err === 'object' && 'type' in err && (err as { type: string }).type === 'entity.too.large') {
    sendJson(res, { status: 413, body: errorBody('Request entity too large') }, false);
    return;
  }
  next(err);
}

function sendJson(res: Response, out: ApiResponse, pretty: boolean): void {
  if (out.headers) for (const [k, v] of Object.entries(out.headers)) res.setHeader(k, v);
  const bytes = Buffer.from(pretty ? JSON.stringify(out.body, null, 2) : JSON.stringify(out.body), 'utf8');
  // Written directly: res.send would lower-case the charset.
  res.status(out.status).setHeader('content-type', 'application/json; charset=UTF-8');
  res.setHeader('content-length', String(bytes.length));
  res.end(res.req.method === 'HEAD' ? undefined : bytes);
}

function callerToken(req: Request, ctx: MockContext): string | undefined {
  const header = req.get('authorization') ?? '';
  const match = /^Bearer\s+(.+)$/i.exec(header.trim());
  const token = match?.[1]?.trim();
  return token && ctx.tokens.has(token) ? token : undefined;
}

function authenticate(ctx: MockContext) {
  return (req: Request, res: Response, next: NextFunction): void => {
    if (!callerToken(req, ctx)) {
      sendJson(res, { status: 401, body: errorBody('Not Authorized') }, false);
      return;
    }
    next();
  };
}

function flatQuery(query: Request['query']): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(query as Record<string, unknown>)) {
    if (typeof v === 'string') out[k] = v;
    else if (Array.isArray(v)) out[k] = v.map(String).join(',');
  }
  return out;
}

/** The event stream's read paths. */
const EVENT_PATHS = /^\/(workspaces\/[^/]+\/)?events$/;

async function serveApi(req: Request, res: Response, ctx: MockContext): Promise<void> {
  const query = flatQuery(req.query);
  const pretty = query.opt_pretty === 'true' || query.opt_pretty === '';
  const token = callerToken(req, ctx);
  if (!token) return sendJson(res, { status: 401, body: errorBody('Not Authorized') }, pretty);
  const caller = ctx.store.indexes.users.get(ctx.tokens.get(token) as Gid);
  if (!caller) return sendJson(res, { status: 401, body: errorBody('Not Authorized') }, pretty);

  const method = (req.method === 'HEAD' ? 'GET' : req.method) as HttpMethod;
  const path = req.path.replace(/\/+$/, '') || '/';
  const isBatch = method === 'POST' && path === '/batch';
  let release = (): void => undefined;
  if (!isBatch) {
    // Standard and concurrent limiters; a rejected request still counts against the minute.
    // Events are read against a budget of their own, higher than the resources' (Events rule 4).
    const events = method === 'GET' && EVENT_PATHS.test(path);
    const slot = events
      ? ctx.limiter.acquire(`${token} events`, 1, 0, ctx.hostility().eventsRateLimitPerMinute)
      : ctx.limiter.acquire(token, method === 'GET' ? 1 : 0, method === 'GET' ? 0 : 1);
    if (!slot.ok) return sendJson(res, { status: 429, body: errorBody(RATE_LIMIT_MESSAGE), headers: { 'retry-after': String(slot.retryAfterSec) } }, pretty);
    release = slot.release;
    res.on('close', release);
  }
  try {
    const delay = ctx.faults.latency();
    if (delay > 0) await sleep(delay);
    const fault = ctx.faults.fault();
    if (fault !== undefined) {
      const body = errorBody(
        fault === 500 ? 'Server Error' : fault === 503 ? 'Service Unavailable' : fault === 504 ? 'Gateway Timeout' : 'Server Error',
        fault === 500 ? { phrase: phraseFor(ctx.faults.drawn) } : {},
      );
      return sendJson(res, { status: fault, body, headers: fault === 503 ? { 'retry-after': '1' } : {} }, pretty);
    }
    const origin = `${req.protocol}://${req.get('host') ?? '127.0.0.1'}`;
    let fields;
    try {
      fields = parseOptFields(query.opt_fields);
    } catch (err) {
      return sendJson(res, errorResponse(err), pretty);
    }
    const out = await execute(
      { method, path, query, body: req.body, caller: { token, user: caller }, apiBase: `${origin}${API_PREFIX}`, origin, fields, inBatch: false },
      ctx,
    );
    sendJson(res, out, pretty);
  } catch (err) {
    sendJson(res, errorResponse(err instanceof ApiError ? err : new ApiError(500, String(err))), pretty);
  } finally {
    release();
  }
}

/** Pre-signed downloads: no Authorization (do not forward it), short-lived, S3-style errors. */
async function serveDownload(req: Request, res: Response, ctx: MockContext): Promise<void> {
  const kind = req.params.kind === 'attachments' ? 'attachments' : req.params.kind === 'exports' ? 'exports' : undefined;
  const gid = String(req.params.gid);
  const xml = (status: number, code: 'AccessDenied' | 'SignatureDoesNotMatch' | 'NoSuchKey', message: string): void => {
    res.status(status).type('application/xml').send(s3Error(code, message));
  };
  if (!kind) return xml(404, 'NoSuchKey', 'The specified key does not exist.');
  const check = ctx.downloads.check(
    kind,
    gid,
    typeof req.query.expires === 'string' ? req.query.expires : undefined,
    typeof req.query.signature === 'string' ? req.query.signature : undefined,
  );
  if (check === 'bad-signature') return xml(403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.');
  if (check === 'expired') return xml(403, 'AccessDenied', 'Request has expired');
  if (kind === 'attachments') {
    const a = ctx.store.indexes.attachments.get(gid);
    if (!a || !a.kind) return xml(404, 'NoSuchKey', 'The specified key does not exist.');
    const bytes = await ctx.documents.bytes(a);
    res.status(200).setHeader('content-type', MIME_TYPES[a.kind]);
    res.setHeader('content-length', String(bytes.length));
    res.setHeader('content-disposition', `attachment; filename="${a.name.replace(/[^\x20-\x7e]|"/g, '_')}"`);
    res.setHeader('etag', `"${crypto.createHash('md5').update(bytes).digest('hex')}"`);
    res.end(req.method === 'HEAD' ? undefined : bytes);
    return;
  }
  const bytes = ctx.jobs.fileBytes(gid);
  if (!bytes) return xml(404, 'NoSuchKey', 'The specified key does not exist.');
  const file = ctx.jobs.files.get(gid);
  // A .gz file (JSON, or JSON Lines for resource exports), served as bytes: the client gunzips.
  res.status(200).setHeader('content-type', 'application/gzip');
  res.setHeader('content-disposition', `attachment; filename="${file?.kind ?? 'export'}-${gid}.${file?.kind === 'resource_export' ? 'jsonl' : 'json'}.gz"`);
  res.setHeader('content-length', String(bytes.length));
  res.end(bytes);
}
