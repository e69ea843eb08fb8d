import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { DEMO_CORPUS_DIR } from '../../src/demo/demo-corpus-dir';
import { seedDemo } from '../../src/demo/seed-demo';
import { ConversationsClient } from '../../src/platform/conversations-client';
import { DataApiClient } from '../../src/platform/data-api-client';
import { GatewayFilesClient } from '../../src/platform/gateway-files-client';
import type { FileUsage } from '../../src/platform/usage/usage-report';
import { SyncStore } from '../../src/staging/write-path/sync-store';
import { captureLogger } from '../helpers/capture-logger';
import type { DatabaseKind } from '../helpers/test-databases';
import { startTestGateway, TEST_KEYS, type TestGateway } from '../helpers/test-gateway';
import { finalMessage, startSimulator, type RunningSimulator } from '@content-gateway/kit/test/mocks/platform/simulator-harness';

export const USERS = ['ana.souza@northwind.example', 'bo.lindqvist@northwind.example', 'chen.wei@northwind.example', 'dana.okafor@northwind.example'];
const QUESTIONS = ['expense policy receipts', 'salary bands', 'parental leave', 'holiday calendar', 'incident response on-call', 'welcome café', 'code review'];

export interface UsageScenario {
  gw: TestGateway;
  p: RunningSimulator;
  /** A cited file the gateway now serves as a tombstone. */
  tombstoned: string;
  /** A cited file the gateway no longer lists at all. */
  purged: string;
  /** What the platform recorded, per file, computed from the simulator's own state (the oracle). */
  expected(): Map<string, Omit<FileUsage, 'name' | 'status'>>;
  dataClient(extra?: Partial<ConstructorParameters<typeof DataApiClient>[0]>): DataApiClient;
  gatewayClient(): GatewayFilesClient;
  close(): Promise<void>;
}

/**
 * The demo gateway (on SQLite or Postgres) ingested by the platform simulator; four people ask
 * seven questions each; every third answer is rated through the Conversations client (helpful and
 * unhelpful in turn); then two cited files go away at the gateway: one is a tombstone, one purged.
 */
export async function usageScenario(kind: DatabaseKind): Promise<UsageScenario> {
  const corpus = fs.mkdtempSync(path.join(os.tmpdir(), 'usage-corpus-'));
  fs.cpSync(DEMO_CORPUS_DIR, corpus, { recursive: true });
  const gw = await startTestGateway(kind);
  await seedDemo(gw.database.db, gw.blobs, { root: corpus });
  // The tenant lives in the EU region: `usage` must be pointed at that region's server.
  const p = await startSimulator({ gateway: { baseUrl: gw.url, auth: { kind: 'api-key', key: TEST_KEYS[0] } }, settings: { dataRegion: 'eu' } });
  await p.sim.ingest();
  const logger = captureLogger().logger;
  // A conversation is its asker's: each person rates through a client whose tokens act for them.
  const conversationsOf = (userEmail: string) =>
    new ConversationsClient({
      apiBaseUrl: p.origin,
      assistantName: p.sim.credentials.assistantName,
      auth: {
        kind: 'oauth',
        tokenUrl: `${p.origin}/oauth/v1/token`,
        clientId: p.sim.credentials.clients.conversations.clientId,
        clientSecret: p.sim.credentials.clients.conversations.clientSecret,
        userEmail,
      },
      logger,
    });
  let n = 0;
  for (const email of USERS) {
    const conversations = conversationsOf(email);
    for (const q of QUESTIONS) {
      const answer = finalMessage((await p.ask(email, q)).messages);
      if (n++ % 3 === 0) await conversations.rate(answer, n % 2 === 0 ? 'helpful' : 'unhelpful');
    }
  }
  const cited = [...new Set(p.sim.context.pluginResources.filter((r) => r.cited).map((r) => r.detail.external_resource_id))].filter((id) =>
    fs.existsSync(path.join(corpus, id.replace(/^demo:/, ''))),
  );
  const [purged, tombstoned] = cited as [string, string];
  // Purged: removed, synced (a tombstone), and the tombstone's retention over.
  fs.rmSync(path.join(corpus, purged.replace(/^demo:/, '')));
  await seedDemo(gw.database.db, gw.blobs, { root: corpus });
  await new SyncStore(gw.database.db).purgeTombstones('demo', '9999-01-01T00:00:00.000Z');
  fs.rmSync(path.join(corpus, tombstoned.replace(/^demo:/, '')));
  await seedDemo(gw.database.db, gw.blobs, { root: corpus });

  const expected = () => {
    const out = new Map<string, Omit<FileUsage, 'name' | 'status'>>();
    const ctx = p.sim.context;
    const ratingOf = new Map(ctx.store.feedback.map((f) => [ctx.store.answerInteraction.get(f.message_id), f.rating]));
    for (const r of ctx.pluginResources) {
      const e = out.get(r.detail.external_resource_id) ?? { id: r.detail.external_resource_id, surfaced: 0, cited: 0, helpful: 0, unhelpful: 0 };
      e.surfaced += 1;
      if (r.cited) {
        e.cited += 1;
        const rating = ratingOf.get(r.interaction_id);
        if (rating) e[rating] += 1;
      }
      out.set(e.id, e);
    }
    return out;
  };
  return {
    gw,
    p,
    tombstoned,
    purged,
    expected,
    dataClient: (extra = {}) =>
      new DataApiClient({
        baseUrl: `${p.origin}/regions/eu/export/v1/records`,
        auth: { kind: 'api-key', key: p.sim.credentials.dataApiKey },
        logger,
        ...extra,
      }),
    gatewayClient: () => new GatewayFilesClient({ baseUrl: gw.url, key: TEST_KEYS[0], logger }),
    close: async () => {
      await p.close();
      await gw.close();
      fs.rmSync(corpus, { recursive: true, force: true });
    },
  };
}
