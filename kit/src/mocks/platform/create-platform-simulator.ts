/**
 * The platform simulator: a stateful stand-in for the assistant platform. It ingests a gateway
 * over HTTP (or starts on a small generated corpus), answers questions with citations of files
 * the asker may VIEW, and serves the Conversations, Data and Message APIs by the lifecycle table.
 * It imports nothing from the gateway.
 *
 *   const sim = createPlatformSimulator({ gateway: { baseUrl, auth: { kind: 'api-key', key } }, now: clock.now });
 *   await sim.ingest();
 */
import crypto from 'node:crypto';
import express, { type NextFunction, type Request, type Response } from 'express';
import { AccessResolver } from './access-resolver';
import { Assistant } from './answers/assistant';
import { ConversationStore } from './answers/conversation-store';
import type { PluginResource } from './answers/plugin-resources';
import { adminRouter } from './api/admin-routes';
import { ApiError, sendError } from './api/api-error';
import { generateCredentials, PlatformAuth, type Credentials } from './api/platform-auth';
import { registerRoutes } from './api/register-routes';
import { SignedTokens } from './api/signed-token';
import { createClock, type SimulatorClock } from './clock';
import { CorpusIndex } from './corpus-index';
import { generatedCorpus } from './generated-corpus';
import { applyHostility, DEFAULT_HOSTILITY, FaultInjector, RateLimiter, type Hostility, type HostilityPatch } from './hostility';
import { EMPTY_SNAPSHOT, type CorpusSnapshot } from './ingest/corpus-snapshot';
import { GatewayReader, type GatewayAuth } from './ingest/gateway-reader';
import { ingestGateway, type IngestReport } from './ingest/ingest-gateway';
import type { LoadedCorpus, PlatformContext, SentMessage, SimulatorSettings } from './platform-context';

export interface PlatformSimulatorOptions {
  /** The gateway to ingest; without it the simulator serves a small generated corpus. */
  gateway?: { baseUrl: string; auth: GatewayAuth; maxRetries?: number; sleep?: (ms: number) => Promise<void> };
  /** The base clock; `advanceClock` and `POST /_admin/clock` move an offset on top of it. */
  now?: () => number;
  credentials?: Partial<Credentials>;
  hostility?: HostilityPatch;
  settings?: Partial<SimulatorSettings>;
  /** Ingest again every so often (simulator clock; an ingest still running is not doubled). */
  ingestEveryMs?: number;
}

export interface PlatformSimulator {
  app: express.Express;
  credentials: Credentials;
  clock: SimulatorClock;
  advanceClock(ms: number): Promise<void>;
  /** Runs one ingest now (joins the one running, if any). */
  ingest(): Promise<IngestReport>;
  context: PlatformContext;
  setHostility(patch: HostilityPatch): Hostility;
  /** Stops the schedule. */
  close(): void;
}

function load(snapshot: CorpusSnapshot): LoadedCorpus {
  return { snapshot, index: new CorpusIndex(snapshot), access: new AccessResolver(snapshot) };
}

export function createPlatformSimulator(options: PlatformSimulatorOptions = {}): PlatformSimulator {
  const clock = createClock(options.now);
  const credentials = generateCredentials(options.credentials);
  let hostility = applyHostility(DEFAULT_HOSTILITY, options.hostility ?? {});
  let corpus = load(options.gateway ? EMPTY_SNAPSHOT : generatedCorpus(clock.iso()));
  const reader = options.gateway
    ? new GatewayReader({
        baseUrl: options.gateway.baseUrl,
        auth: options.gateway.auth,
        ...(options.gateway.maxRetries !== undefined ? { maxRetries: options.gateway.maxRetries } : {}),
        ...(options.gateway.sleep ? { sleep: options.gateway.sleep } : {}),
      })
    : undefined;
  const ingests: IngestReport[] = [];
  let running: Promise<IngestReport> | undefined;
  const runIngest = async (): Promise<IngestReport> => {
    if (!reader) throw new ApiError('bad-request', 'no gateway is configured: the simulator serves its generated corpus');
    const { snapshot, report } = await ingestGateway(reader, corpus.snapshot, { now: clock.iso });
    if (snapshot) corpus = load(snapshot);
    ingests.push(report);
    return report;
  };
  const ingest = (): Promise<IngestReport> => (running ??= runIngest().finally(() => (running = undefined)));
  const store = new ConversationStore(clock.now);
  const pluginResources: PluginResource[] = [];
  const ctx: PlatformContext = {
    clock,
    auth: new PlatformAuth(credentials, clock.now),
    corpus: () => corpus,
    store,
    pluginResources,
    assistant: new Assistant({
      store,
      pluginResources,
      assistantName: credentials.assistantName,
      search: () => ({ ...corpus, source: corpus.snapshot.source }),
    }),
    tokens: new SignedTokens(),
    hostility: () => hostility,
    setHostility: (patch) => {
      hostility = applyHostility(hostility, patch);
      // New limits start a new window.
      if (patch.rateLimitPerMinute !== undefined) ctx.limiter.reset();
      return hostility;
    },
    limiter: new RateLimiter(clock.now),
    faults: new FaultInjector(() => hostility),
    settings: { lifecycle: {}, pilotVersions: ['v2beta1'], dataPageSize: 100, dataRegion: 'us', schedule: [], ...options.settings },
    sentMessages: [] as SentMessage[],
    ingests,
    ingest,
    serviceRootUuid: crypto.randomUUID(),
  };

  let nextDue = options.ingestEveryMs ? clock.now() : Number.POSITIVE_INFINITY;
  const tick = (): void => {
    if (!reader || clock.now() < nextDue) return;
    nextDue = clock.now() + (options.ingestEveryMs as number);
    void ingest().catch(() => undefined);
  };
  const timer = options.ingestEveryMs ? setInterval(tick, Math.min(1000, options.ingestEveryMs)) : undefined;
  timer?.unref();

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.use('/_admin', adminRouter(ctx));
  registerRoutes(app, ctx);
  app.use((req: Request, res: Response) => sendError(res, 'data', new ApiError('not-found', `No route ${req.method} ${req.path}`)));
  app.use((err: unknown, _req: Request, res: Response, _next: NextFunction) =>
    sendError(res, 'data', err instanceof ApiError ? err : new ApiError('bad-request', 'The request could not be read')),
  );

  return {
    app,
    credentials,
    clock,
    advanceClock: async (ms) => {
      clock.advance(ms);
      tick();
      if (running) await running;
    },
    ingest,
    context: ctx,
    setHostility: ctx.setHostility,
    close: () => {
      if (timer) clearInterval(timer);
    },
  };
}
