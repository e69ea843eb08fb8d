import crypto from 'node:crypto';
import path from 'node:path';
import type express from 'express';
import { CoalescingSyncRequester, WebhookSecretsRepository, createWorkManagementAdapter, registerWorkManagementWebhook } from 'content-gateway';
import { FsBlobStore } from 'content-gateway';
import { createApp } from 'content-gateway';
import { listenOnLoopback } from 'content-gateway/lib';
import type { Logger } from 'content-gateway/logging';
import { runSync, type SyncSummary } from 'content-gateway';
import type { HarnessMock } from './harness-mock';
import { openHarnessStaging } from './harness-staging';

/** The id prefix the scenarios give the work-management source. */
export const HARNESS_SOURCE = 'wm';

export interface HarnessGatewayOptions {
  /** A scratch folder (the SQLite file and the blobs go there). */
  work: string;
  /** Stage into this Postgres database (in a schema of its own, dropped on close) instead of a SQLite file. */
  databaseUrl?: string;
  logger: Logger;
  /** Put something in front of the gateway's routes (a scenario that breaks access on purpose). */
  front?: (gateway: express.Express) => express.Express;
  /** Receive the mock's webhooks at `/webhooks/wm` (registered on the workspace): each delivery runs an incremental sync. */
  webhooks?: boolean;
}

export interface HarnessGateway {
  url: string;
  key: string;
  /** What the summary names: `sqlite` or `postgres (schema …)`. */
  stagingLabel: string;
  sync(mode: 'full' | 'auto', reconcile?: boolean): Promise<SyncSummary>;
  /** A file as the gateway serves it, by the source's native id (`task:<gid>`). */
  readFile(nativeId: string): Promise<{ status: string; body: string } | undefined>;
  /** Resolves once no webhook-asked sync is running or asked for (at once without webhooks). */
  webhookSyncsIdle(): Promise<void>;
  /** The runs webhook deliveries asked for so far (reconciling, as a deployment's would), oldest first. */
  webhookRuns(): readonly SyncSummary[];
  close(): Promise<void>;
}

/**
 * The gateway of a scenario: a fresh staging database, the work-management adapter pointed at
 * the mock's organization, the gateway app on loopback with a random key, and the sync that feeds it.
 */
export async function startHarnessGateway(mock: HarnessMock, o: HarnessGatewayOptions): Promise<HarnessGateway> {
  const staging = await openHarnessStaging(o.work, o.databaseUrl);
  try {
    const { db } = staging;
    const blobs = new FsBlobStore(path.join(o.work, 'blobs'));
    const adapter = createWorkManagementAdapter(
      { baseUrl: `${mock.url}/api/1.0`, token: mock.token, workspace: mock.workspace, sourceName: HARNESS_SOURCE },
      mock.retryPolicy ? { http: { retryPolicy: mock.retryPolicy } } : {},
    );
    const key = crypto.randomBytes(24).toString('hex');
    // One run at a time: the scenario's own runs and those its webhooks ask for take turns.
    let chain: Promise<unknown> = Promise.resolve();
    const exclusive = <T>(run: () => Promise<T>): Promise<T> => {
      const next = chain.then(run);
      chain = next.catch(() => undefined);
      return next;
    };
    const deps = { db, blobs, logger: o.logger };
    const webhookRuns: SyncSummary[] = [];
    const requester = new CoalescingSyncRequester(
      async () => webhookRuns.push(await exclusive(() => runSync(adapter, deps, { mode: 'auto', reconcile: true }))),
      (source, error) => o.logger.warn({ source, err: error }, 'webhook-asked sync failed'),
    );
    const { app } = await createApp({
      ...(o.webhooks ? { webhooks: { source: HARNESS_SOURCE, requester } } : {}),
      config: { publicBaseUrl: undefined },
      db,
      blobs,
      logger: o.logger,
      apiKeys: [key],
      skipTokenSecret: crypto.randomBytes(32).toString('hex'),
    });
    const server = await listenOnLoopback(o.front ? o.front(app) : app);
    if (o.webhooks) {
      const secrets = new WebhookSecretsRepository(db);
      await registerWorkManagementWebhook(
        {
          baseUrl: `${mock.url}/api/1.0`,
          token: mock.token,
          workspace: mock.workspace,
          resource: mock.workspace,
          target: `${server.url}/webhooks/${HARNESS_SOURCE}?resource=${encodeURIComponent(mock.workspace)}`,
          logger: o.logger,
        },
        () => secrets.expectHandshake({ source: HARNESS_SOURCE, resource: mock.workspace }, 60_000),
      );
    }
    const readFile = async (nativeId: string): Promise<{ status: string; body: string } | undefined> => {
      const res = await fetch(`${server.url}/v1/files/${encodeURIComponent(`${HARNESS_SOURCE}:${nativeId}`)}`, { headers: { Authorization: `Bearer ${key}` } });
      if (!res.ok) return undefined;
      const { value } = (await res.json()) as { value: { status: string; content: { body?: string } } };
      return { status: value.status, body: value.content.body ?? '' };
    };
    return {
      url: server.url,
      key,
      stagingLabel: staging.label,
      sync: (mode, reconcile = true) => exclusive(() => runSync(adapter, deps, { mode, reconcile })),
      readFile,
      webhookSyncsIdle: () => requester.idle(),
      webhookRuns: () => webhookRuns,
      close: async () => {
        await server.close();
        await requester.idle();
        await staging.close();
      },
    };
  } catch (error) {
    await staging.close();
    throw error;
  }
}
