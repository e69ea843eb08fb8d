import { ConversationsClient } from '../../src/platform/conversations-client';
import { PlatformGoneError } from '../../src/platform/platform-error';
import { captureLogger } from '../helpers/capture-logger';
import { startSimulator, type RunningSimulator } from '@content-gateway/kit/test/mocks/platform/simulator-harness';

/**
 * The platform clients warn ahead of a removal they can see: an endpoint the platform has announced
 * for removal (`Sunset`, `X-Api-Change-Notice`) works until its date, and the operator reads the
 * date in a warning, once, instead of meeting a 410 on the day.
 */
const DAY = 86_400_000;
const EMAIL = 'ada@example.test';
let p: RunningSimulator;
let conversationId: string;

beforeAll(async () => {
  p = await startSimulator({ now: () => Date.UTC(2025, 3, 1) });
  conversationId = (await p.ask(EMAIL, 'holidays office')).conversation_id;
});
afterAll(() => p.close());

it('warns once with the date while the endpoint still answers, then gets a typed Gone error after it', async () => {
  const captured = captureLogger();
  const client = new ConversationsClient({
    apiBaseUrl: p.origin,
    assistantName: p.sim.credentials.assistantName,
    auth: {
      kind: 'oauth',
      tokenUrl: `${p.origin}/oauth/v1/token`,
      clientId: p.sim.credentials.clients.conversations.clientId,
      clientSecret: p.sim.credentials.clients.conversations.clientSecret,
      userEmail: EMAIL,
    },
    logger: captured.logger,
    now: () => p.sim.clock.now(),
  });
  await client.listMessages(conversationId);
  expect(captured.warnings()).toEqual([]);
  const at = new Date(p.sim.clock.now() + 30 * DAY).toISOString();
  const scheduled = await p.admin('/lifecycle/schedule', { method: 'POST', body: { row: 'conversations.list-messages@rest/v1', stage: 'removed', at } });
  expect(scheduled.status).toBe(201);
  await client.listMessages(conversationId);
  await client.listMessages((await p.ask(EMAIL, 'expenses')).conversation_id);
  expect(captured.warnings()).toEqual([
    `Conversations API: the platform announced that GET /rest/v1/conversations/${conversationId}/messages will be removed on ${at}: move off it before then`,
  ]);
  await p.sim.advanceClock(30 * DAY);
  await expect(client.listMessages(conversationId)).rejects.toBeInstanceOf(PlatformGoneError);
});
