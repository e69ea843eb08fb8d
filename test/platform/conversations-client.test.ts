import { ConversationsClient } from '../../src/platform/conversations-client';
import { PlatformForbiddenError, PlatformNotFoundError, PlatformRequestError } from '../../src/platform/platform-error';
import { captureLogger } from '../helpers/capture-logger';
import { startSimulator, type RunningSimulator } from '@content-gateway/kit/test/mocks/platform/simulator-harness';
import { recordingFetch, simulatedSleep } from './platform-fixtures';

let p: RunningSimulator;
let conversationId: string;
const EMAIL = 'ada@example.test';

beforeAll(async () => {
  p = await startSimulator({ now: () => Date.UTC(2025, 3, 1) });
  const first = await p.ask(EMAIL, 'holidays office');
  conversationId = first.conversation_id;
  for (const q of ['expenses', 'welcome', 'cluster upgrade', 'on-call rota', 'salary bands', 'offsite lisbon']) {
    await p.sim.advanceClock(1000);
    await p.ask(EMAIL, q, { conversation_id: conversationId });
  }
});
afterAll(() => p.close());
afterEach(() => p.sim.setHostility({ rateLimitPerMinute: 600, faultRate: 0 }));

const oauth = () => ({
  kind: 'oauth' as const,
  tokenUrl: `${p.origin}/oauth/v1/token`,
  clientId: p.sim.credentials.clients.conversations.clientId,
  clientSecret: p.sim.credentials.clients.conversations.clientSecret,
  // A conversation is its asker's: the client reads and rates as that person.
  userEmail: EMAIL,
});
const client = (extra: Partial<ConstructorParameters<typeof ConversationsClient>[0]> = {}) =>
  new ConversationsClient({
    apiBaseUrl: p.origin,
    assistantName: p.sim.credentials.assistantName,
    auth: oauth(),
    logger: captureLogger().logger,
    now: () => p.sim.clock.now(),
    ...extra,
  });

describe('Conversations client: history', () => {
  it('lists every message across cursors, newest first, one page at a time (never in parallel)', async () => {
    const rec = recordingFetch();
    const messages = await client({ fetch: rec.fetch, pageSize: 4 }).listMessages(conversationId);
    const stored = p.sim.context.store.conversations
      .get(conversationId)!
      .messages.map((m) => m.message.message_id)
      .reverse();
    expect(messages.map((m) => m.message_id)).toEqual(stored);
    expect(messages.length).toBe(21);
    const times = messages.map((m) => m.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    const reads = rec.sent.filter((s) => s.url.includes('/messages'));
    expect(reads).toHaveLength(6); // 21 messages in pages of 4
    expect(rec.inFlightMax()).toBe(1);
    expect(reads.every((s) => new URL(s.url).pathname === `/rest/v1/conversations/${conversationId}/messages`)).toBe(true);
    expect(reads.slice(1).every((s) => new URL(s.url).searchParams.get('cursor'))).toBe(true);
  });

  it('a conversation that does not exist, a wrong Assistant-Name: typed errors', async () => {
    await expect(client().listMessages('conv_missing')).rejects.toBeInstanceOf(PlatformNotFoundError);
    await expect(client({ assistantName: 'someone-else' }).listMessages(conversationId)).rejects.toMatchObject({
      name: 'PlatformForbiddenError',
      code: 'FORBIDDEN',
    });
    expect(PlatformForbiddenError).toBeDefined();
  });

  it('a 429 waits out Retry-After and the history still arrives whole', async () => {
    p.sim.setHostility({ rateLimitPerMinute: { conversations: 2 } });
    const clock = simulatedSleep(p);
    const messages = await client({ pageSize: 3, sleep: clock.sleep }).listMessages(conversationId);
    expect(messages).toHaveLength(21);
    expect(clock.waits.length).toBeGreaterThan(0);
  });
});

describe('Conversations client: feedback', () => {
  it("submits helpful and unhelpful ratings by the message's own callback ids; the platform records them", async () => {
    const c = client();
    const finals = (await c.listMessages(conversationId)).filter((m) => m.feedback);
    expect(finals.length).toBe(7);
    await expect(c.rate(finals[0]!, 'helpful', 'spot on')).resolves.toBe('SUBMITTED');
    await expect(c.rate(finals[1]!, 'unhelpful')).resolves.toBe('SUBMITTED');
    const { body } = await p.admin('/feedback');
    expect(body.feedback.slice(-2).map((f: any) => [f.message_id, f.rating, f.additional_feedback])).toEqual([
      [finals[0]!.message_id, 'helpful', 'spot on'],
      [finals[1]!.message_id, 'unhelpful', null],
    ]);
  });

  it('a callback id of another message is refused by the platform; an over-long comment and a message without feedback by the client, without a request', async () => {
    const rec = recordingFetch();
    const c = client({ fetch: rec.fetch });
    const finals = (await c.listMessages(conversationId)).filter((m) => m.feedback);
    const progress = (await c.listMessages(conversationId)).find((m) => m.actor === 'ASSISTANT' && !m.feedback)!;
    const ids = { conversationId, responseId: finals[0]!.response_id, messageId: finals[0]!.message_id };
    await expect(c.submitFeedback(ids, finals[1]!.feedback!.helpful.callback_id)).rejects.toMatchObject({
      name: 'PlatformRequestError',
      status: 400,
      code: 'INVALID_REQUEST',
    });
    const before = rec.sent.length;
    await expect(c.submitFeedback(ids, finals[0]!.feedback!.helpful.callback_id, 'x'.repeat(1001))).rejects.toBeInstanceOf(PlatformRequestError);
    expect(() => c.rate(progress, 'helpful')).toThrow(/does not support feedback/);
    expect(rec.sent.length).toBe(before);
  });
});

describe('Conversations client: the deprecated /assistant/v1 base', () => {
  it('defaults to /rest/v1 and warns about nothing there', async () => {
    const log = captureLogger();
    const c = client({ logger: log.logger });
    expect(c.basePath).toBe('/rest/v1');
    await c.listMessages(conversationId);
    expect(log.warnings()).toEqual([]);
  });

  it('configured for /assistant/v1: works, and warns once however many calls it makes', async () => {
    const log = captureLogger();
    const rec = recordingFetch();
    const c = client({ logger: log.logger, basePath: '/assistant/v1', pageSize: 5, fetch: rec.fetch });
    expect(await c.listMessages(conversationId)).toHaveLength(21);
    expect(await c.listMessages(conversationId)).toHaveLength(21);
    expect(rec.sent.filter((s) => s.url.includes('/assistant/v1/')).length).toBe(10);
    expect(log.warnings()).toHaveLength(1);
    expect(log.warnings()[0]).toMatch(/\/assistant\/v1 is deprecated; use \/rest\/v1/);
  });

  it('an answer carrying x-service-root-uuid (here: a proxy rewriting /rest/v1 to the deprecated base) is warned about once', async () => {
    const log = captureLogger();
    const proxy: typeof fetch = (input, init) => fetch(String(input).replace('/rest/v1/', '/assistant/v1/'), init);
    const c = client({ logger: log.logger, pageSize: 5, fetch: proxy });
    await c.listMessages(conversationId);
    expect(log.warnings()).toHaveLength(1);
    expect(log.warnings()[0]).toMatch(/x-service-root-uuid/);
    // It calls /rest/v1 already: the warning points at what is in between, not at the base it uses.
    expect(log.warnings()[0]).toMatch(/calls \/rest\/v1.*deprecated \/assistant\/v1/);
    expect(log.warnings()[0]).not.toMatch(/\/rest\/v1\) is deprecated/);
  });
});
