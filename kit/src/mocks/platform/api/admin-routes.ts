/**
 * Private paths for tests, the harness and people trying the simulator (`Authorization: Bearer
 * <admin key>`): run an ingest, ask the assistant as a person, see who sees what, move the clock,
 * change hostility and lifecycle settings, read feedback and sent messages.
 */
import express, { type NextFunction, type Request, type Response } from 'express';
import { AskError } from '../answers/assistant';
import type { PlatformContext } from '../platform-context';
import { DATA_REGIONS } from './data-regions';
import { scheduleChange, scheduledStage } from './lifecycle-schedule';
import { ApiError, sendError } from './api-error';
import { EXPERIMENTAL_VERSION, LIFECYCLE_TABLE, stageOf, type Stage } from './lifecycle-table';

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const STAGES: readonly Stage[] = ['stable', 'legacy', 'deprecated', 'experimental', 'removed'];

const wrap = (fn: (req: Request, res: Response) => Promise<void> | void) => async (req: Request, res: Response) => {
  try {
    await fn(req, res);
  } catch (error) {
    sendError(res, 'data', error instanceof AskError ? new ApiError(error.kind === 'NOT_FOUND' ? 'not-found' : 'bad-request', error.message) : error);
  }
};

function ask(ctx: PlatformContext, body: unknown) {
  if (!isObj(body) || typeof body.email !== 'string' || !body.email.includes('@')) throw new ApiError('bad-request', 'email is required');
  const text = typeof body.question === 'string' ? body.question : undefined;
  const callbackId = typeof body.callback_id === 'string' ? body.callback_id : undefined;
  const out = ctx.assistant.ask({
    email: body.email,
    ...(text !== undefined ? { text } : {}),
    ...(callbackId !== undefined ? { callbackId } : {}),
    ...(typeof body.conversation_id === 'string' ? { conversationId: body.conversation_id } : {}),
    isCommonmark: body.is_commonmark === true,
  });
  return { conversation_id: out.conversation.id, response_id: out.responseId, messages: out.messages };
}

function settingsPatch(ctx: PlatformContext, body: unknown): void {
  if (!isObj(body)) throw new ApiError('bad-request', 'the body must be an object');
  if (isObj(body.lifecycle)) {
    for (const [id, stage] of Object.entries(body.lifecycle)) {
      if (!LIFECYCLE_TABLE.some((r) => r.id === id) || !STAGES.includes(stage as Stage))
        throw new ApiError('bad-request', `cannot set ${id} to ${String(stage)}`);
      ctx.settings.lifecycle[id] = stage as Stage;
    }
  }
  if (Array.isArray(body.pilotVersions)) {
    if (!body.pilotVersions.every((v) => typeof v === 'string' && EXPERIMENTAL_VERSION.test(v)))
      throw new ApiError('bad-request', 'pilotVersions are like v2beta1');
    ctx.settings.pilotVersions = body.pilotVersions as string[];
  }
  if (body.dataPageSize !== undefined) {
    if (!Number.isInteger(body.dataPageSize) || (body.dataPageSize as number) < 1) throw new ApiError('bad-request', 'dataPageSize is a positive integer');
    ctx.settings.dataPageSize = body.dataPageSize as number;
  }
  if (body.dataRegion !== undefined) {
    if (!DATA_REGIONS.some((r) => r.id === body.dataRegion))
      throw new ApiError('bad-request', `dataRegion is one of ${DATA_REGIONS.map((r) => r.id).join(', ')}`);
    ctx.settings.dataRegion = body.dataRegion as string;
  }
}

export function adminRouter(ctx: PlatformContext): express.Router {
  const router = express.Router();
  router.use((req: Request, res: Response, next: NextFunction) =>
    ctx.auth.admin(req.get('authorization')) ? next() : sendError(res, 'data', new ApiError('unauthorized', 'the admin key is required')),
  );
  router.use(express.json({ limit: '1mb' }));
  router.post(
    '/ingest',
    wrap(async (_req, res) => void res.json(await ctx.ingest())),
  );
  router.get(
    '/ingests',
    wrap((_req, res) => void res.json({ ingests: ctx.ingests })),
  );
  router.post(
    '/ask',
    wrap((req, res) => void res.json(ask(ctx, req.body))),
  );
  router.get(
    '/access',
    wrap((req, res) => {
      const email = String(req.query.email ?? '');
      const { access } = ctx.corpus();
      res.json({ email, viewer: access.viewer(email).kind, files: [...access.visibleFileIds(email)].sort() });
    }),
  );
  router.get(
    '/state',
    wrap((_req, res) => {
      const { snapshot } = ctx.corpus();
      res.json({
        now: ctx.clock.iso(),
        source: snapshot.source,
        ingestedAt: snapshot.ingestedAt,
        files: snapshot.files.size,
        users: snapshot.users.length,
        groups: snapshot.groups.length,
        conversations: ctx.store.conversations.size,
        pluginResources: ctx.pluginResources.length,
        settings: ctx.settings,
        hostility: ctx.hostility(),
      });
    }),
  );
  router.post(
    '/clock',
    wrap((req, res) => {
      const ms = isObj(req.body) ? req.body.advance_ms : undefined;
      if (typeof ms !== 'number' || !Number.isFinite(ms) || ms < 0) throw new ApiError('bad-request', 'advance_ms is a non-negative number');
      ctx.clock.advance(ms);
      res.json({ now: ctx.clock.iso() });
    }),
  );
  router.patch(
    '/hostility',
    wrap((req, res) => void res.json(ctx.setHostility(isObj(req.body) ? req.body : {}))),
  );
  router.patch(
    '/settings',
    wrap((req, res) => {
      settingsPatch(ctx, req.body);
      res.json(ctx.settings);
    }),
  );
  router.get(
    '/lifecycle',
    wrap(
      (_req, res) =>
        void res.json({
          endpoints: LIFECYCLE_TABLE.map((r) => ({
            id: r.id,
            method: r.method,
            path: r.path,
            stage: scheduledStage(r, ctx.settings.schedule, ctx.clock.now()) ?? stageOf(r, ctx.settings.lifecycle),
            note: r.note,
          })),
          schedule: ctx.settings.schedule,
        }),
    ),
  );
  router.post(
    '/lifecycle/schedule',
    wrap((req, res) => {
      const change = scheduleChange(req.body, ctx.clock.now());
      ctx.settings.schedule.push(change);
      res.status(201).json(change);
    }),
  );
  router.get(
    '/feedback',
    wrap((_req, res) => void res.json({ feedback: ctx.store.feedback })),
  );
  router.get(
    '/messages',
    wrap((_req, res) => void res.json({ messages: ctx.sentMessages })),
  );
  router.use((req: Request, res: Response) => sendError(res, 'data', new ApiError('not-found', `No route ${req.method} /_admin${req.path}`)));
  return router;
}
