/**
 * Builds the public API from the lifecycle table: each row's route gets the stage's gate and
 * headers, then rate limits and injected faults, then a body parser and its operation. Errors of
 * any step answer in the family's format; nothing escapes as an unhandled 500.
 */
import crypto from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import express, { type NextFunction, type Request, type Response } from 'express';
import type { PlatformContext } from '../platform-context';
import { noticeHeaders, pendingChange, scheduledStage } from './lifecycle-schedule';
import { ApiError, sendError } from './api-error';
import { createConversation, createResponse, listMessages, submitFeedback } from './conversations-api';
import { countPluginResources, listInteractions, listPluginResources } from './data-api';
import {
  EXPERIMENTAL_NOTICE_DAYS,
  EXPERIMENTAL_VERSION,
  LIFECYCLE_TABLE,
  OTHER_CONVERSATION_BASES,
  stageOf,
  type LifecycleRow,
  type Operation,
} from './lifecycle-table';
import { sendMessage } from './message-api';
import { getModal, openModal, submitModal } from './modals-api';

type Handler = (req: Request, res: Response, ctx: PlatformContext, row: LifecycleRow) => Promise<void>;

async function issueToken(req: Request, res: Response, ctx: PlatformContext): Promise<void> {
  const token = await ctx.auth.issueToken((req.body ?? {}) as Record<string, unknown>, req.get('authorization'));
  res
    .status(200)
    .set({ 'cache-control': 'no-store' })
    .json({ ...token, data: token });
}

const HANDLERS: Record<Operation, Handler> = {
  listMessages,
  submitFeedback,
  createConversation,
  createResponse,
  openModal,
  getModal,
  submitModal,
  countPluginResources,
  listPluginResources,
  listInteractions,
  sendMessage,
  issueToken,
};

/** Stage gate and headers (see the table's comment). */
function applyLifecycle(req: Request, res: Response, ctx: PlatformContext, row: LifecycleRow): LifecycleRow {
  const now = ctx.clock.now();
  const stage = scheduledStage(row, ctx.settings.schedule, now) ?? stageOf(row, ctx.settings.lifecycle);
  const pending = pendingChange(row, ctx.settings.schedule, now);
  if (pending) res.set(noticeHeaders(pending));
  if (stage === 'experimental') {
    const version = String(req.params.version ?? '');
    if (!EXPERIMENTAL_VERSION.test(version) || !ctx.settings.pilotVersions.includes(version))
      throw new ApiError('not-found', `No API version ${version} for this organization`);
    res.set('x-api-change-notice-days', String(EXPERIMENTAL_NOTICE_DAYS));
  }
  res.set('x-api-lifecycle', stage);
  if (stage === 'removed') throw new ApiError('gone', `${row.method} ${row.path} has been removed${row.successor ? `; use ${row.successor}` : ''}`);
  if (stage === 'deprecated') {
    res.set('deprecation', row.since ? `@${Math.floor(Date.parse(row.since) / 1000)}` : 'true');
    if (row.successor) res.set('link', `<${row.successor}>; rel="successor-version"`);
    if (row.serviceRootUuid) res.set('x-service-root-uuid', ctx.serviceRootUuid);
  }
  return { ...row, stage };
}

async function applyHostility(req: Request, ctx: PlatformContext, row: LifecycleRow): Promise<void> {
  const s = ctx.hostility();
  const who = crypto
    .createHash('sha256')
    .update(req.get('authorization') ?? req.ip ?? '')
    .digest('hex')
    .slice(0, 16);
  const wait = ctx.limiter.take(`${row.family}:${who}`, s.rateLimitPerMinute[row.family]);
  if (wait !== undefined) throw new ApiError('rate-limited', 'Rate limit exceeded', { 'retry-after': String(wait) });
  const delay = ctx.faults.latency();
  if (delay > 0) await sleep(delay);
  const fault = ctx.faults.fault();
  if (fault !== undefined) throw new ApiError('internal', 'Internal server error (injected)');
}

const jsonBody = express.json({ limit: '1mb', type: () => true });
const formBody = express.urlencoded({ extended: false, limit: '16kb' });

function parseBody(req: Request, res: Response, row: LifecycleRow): Promise<void> {
  if (row.method !== 'POST') return Promise.resolve();
  const parser = row.family === 'auth' && req.is('application/x-www-form-urlencoded') ? formBody : jsonBody;
  return new Promise((resolve, reject) => {
    parser(req, res, (err?: unknown) => (err ? reject(new ApiError('bad-request', 'The body is not valid JSON')) : resolve()));
  });
}

function route(ctx: PlatformContext, row: LifecycleRow) {
  return async (req: Request, res: Response): Promise<void> => {
    try {
      const effective = applyLifecycle(req, res, ctx, row);
      await applyHostility(req, ctx, row);
      await parseBody(req, res, row);
      await HANDLERS[row.operation](req, res, ctx, effective);
    } catch (error) {
      sendError(res, row.family, error);
    }
  };
}

/** Every row's route, plus 404s in each family's format for the rest of its paths. */
export function registerRoutes(app: express.Express, ctx: PlatformContext): void {
  for (const row of LIFECYCLE_TABLE) {
    const paths = row.family === 'data' ? [row.path, `/regions/:region${row.path}`] : [row.path];
    for (const path of paths) {
      if (row.method === 'GET') app.get(path, route(ctx, row));
      else app.post(path, route(ctx, row));
    }
  }
  // A capability served on one base only: its path on the other bases says where it is served.
  for (const row of LIFECYCLE_TABLE) {
    if (!row.onlyOn) continue;
    const rest = row.path.slice(row.onlyOn.length);
    const refuse = (req: Request, res: Response) =>
      sendError(res, row.family, new ApiError('not-found', `No route ${req.method} ${req.path}: this capability is served only on ${row.onlyOn}`));
    for (const base of OTHER_CONVERSATION_BASES) {
      if (row.method === 'GET') app.get(`${base}${rest}`, refuse);
      else app.post(`${base}${rest}`, refuse);
    }
  }
  const notFound = (family: 'conversations' | 'data' | 'message') => (req: Request, res: Response, _next: NextFunction) =>
    sendError(res, family, new ApiError('not-found', `No route ${req.method} ${req.path}`));
  app.use(['/export', '/regions'], notFound('data'));
  app.use(['/rest/v1/messages', '/rest/v1beta1/messages'], notFound('message'));
  app.use(['/rest', '/assistant'], notFound('conversations'));
}
