import { QueueSyncRequester } from '../../../src/cli/sync-queue/queue-sync-requester';
import { loadConfig } from '../../../src/config/load-config';
import { captureLogger } from '../../helpers/capture-logger';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-databases';

const pgUrl = process.env.TEST_DATABASE_URL;
const SOURCE = 'work-management';

if (!pgUrl) {
  describe.skip('the queue requester of webhook deliveries (TEST_DATABASE_URL is not set: skipped)', () => {
    it('a flood of requests costs one send and one after it', () => undefined);
  });
}

/**
 * What `serve` does with webhook deliveries on Postgres (a real pg-boss queue in a schema of its
 * own): a flood of requests (replayed deliveries) is one send to the queue and at most one after
 * it, not one insert each, and every request is still honoured by a job.
 */
(pgUrl ? describe : describe.skip)('the queue requester of webhook deliveries (Postgres)', () => {
  let t: TestDatabase;
  beforeEach(async () => {
    t = await createTestDatabase('postgres');
  });
  afterEach(async () => {
    await t.destroy();
  });

  const sends = (lines: Array<{ msg: string }>) => lines.filter((l) => l.msg === 'webhook: incremental sync enqueued');

  it('a flood of requests while a send is under way becomes one send after it', async () => {
    const log = captureLogger('info');
    const config = loadConfig({ ...t.env, GATEWAY_API_KEY: 'queue-requester-key-0123456789abcdef' });
    const requester = await QueueSyncRequester.start(config, { db: t.db, blobs: undefined as never, close: () => Promise.resolve() }, SOURCE, log.logger);
    for (let i = 0; i < 200; i++) requester.request(SOURCE);
    await requester.stop();
    expect(sends(log.lines())).toEqual([
      expect.objectContaining({ source: SOURCE, coalesced: false }),
      expect.objectContaining({ source: SOURCE, coalesced: true }),
    ]);
    const jobs = await t.db
      .withSchema(config.syncQueueSchema)
      .from('job')
      .where({ name: `sync.${SOURCE}.incremental` })
      .count({ n: '*' });
    expect(Number(jobs[0]?.n)).toBe(1);
  });

  it('a request after the sends finished is sent again', async () => {
    const log = captureLogger('info');
    const config = loadConfig({ ...t.env, GATEWAY_API_KEY: 'queue-requester-key-0123456789abcdef' });
    const requester = await QueueSyncRequester.start(config, { db: t.db, blobs: undefined as never, close: () => Promise.resolve() }, SOURCE, log.logger);
    requester.request(SOURCE);
    for (let i = 0; i < 100 && sends(log.lines()).length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 20));
    requester.request(SOURCE);
    await requester.stop();
    expect(sends(log.lines())).toHaveLength(2);
  });
});
