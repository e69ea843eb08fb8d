import { finalMessage, startSimulator, type RunningSimulator } from './simulator-harness';

/** List conversation messages and Submit feedback, on /rest/v1 and the deprecated /assistant/v1. */
let p: RunningSimulator;
let conv: string;
let headers: Record<string, string>;
const BEN = 'ben@example.test';
const START = Date.UTC(2025, 5, 1);

beforeAll(async () => {
  p = await startSimulator({ now: () => START });
  conv = (await p.ask(BEN, 'on-call page escalation')).conversation_id;
  for (let i = 0; i < 8; i++) await p.ask(BEN, `offsite lisbon venue ${i}`, { conversation_id: conv }); // 27 messages
  headers = await p.conversationHeaders(BEN);
});
afterAll(() => p.close());

const list = (query = '', h: Record<string, string> = headers, base = '/rest/v1', id = conv) =>
  p.call(`${base}/conversations/${id}/messages${query}`, { headers: h });

describe('List conversation messages: ordered by creation time, most recent first; metadata.next_cursor null when no more results', () => {
  it('pages through every message once, newest first, with opaque cursors', async () => {
    const seen: any[] = [];
    let cursor: string | null = null;
    do {
      const res: any = await list(`?limit=10${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
      expect(res.status).toBe(200);
      seen.push(...res.body.messages);
      cursor = res.body.metadata.next_cursor;
    } while (cursor);
    expect(seen.length).toBe(27);
    expect(new Set(seen.map((m) => m.message_id)).size).toBe(27);
    const times = seen.map((m) => Date.parse(m.created_at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });
});

describe('List conversation messages: limit default 20, range 1 to 100', () => {
  it('default 20, then the rest', async () => {
    const first = await list();
    expect(first.body.messages.length).toBe(20);
    const rest = await list(`?cursor=${encodeURIComponent(first.body.metadata.next_cursor)}`);
    expect(rest.body.messages.length).toBe(7);
    expect(rest.body.metadata.next_cursor).toBeNull();
  });
  it.each(['1', '100'])('limit=%s is served', async (limit) => {
    expect((await list(`?limit=${limit}`)).body.messages.length).toBe(Math.min(27, Number(limit)));
  });
  it.each(['0', '101', '-1', 'ten', '2.5', ''])('limit=%j is 400 INVALID_CURSOR (invalid input parameters)', async (limit) => {
    const res = await list(`?limit=${limit}`);
    expect([res.status, res.body]).toEqual([400, { error: { code: 'INVALID_CURSOR', message: expect.any(String) } }]);
  });
});

describe('Errors: 400 INVALID_CURSOR, 401 UNAUTHORIZED, 403 FORBIDDEN, 404 NOT_FOUND, 429 RATE_LIMIT_EXCEEDED, 500 INTERNAL_ERROR, in {"error": {code, message}}', () => {
  const expectError = (res: any, status: number, code: string) =>
    expect([res.status, res.body]).toEqual([status, { error: { code, message: expect.any(String) } }]);
  it('400 INVALID_CURSOR: a cursor that is not one, or belongs to another conversation', async () => {
    expectError(await list('?cursor=bogus'), 400, 'INVALID_CURSOR');
    const other = (await p.ask(BEN, 'holiday')).conversation_id;
    const cursor = (await list('?limit=1', headers, '/rest/v1', other)).body.metadata.next_cursor;
    expectError(await list(`?cursor=${encodeURIComponent(cursor)}`), 400, 'INVALID_CURSOR');
  });
  it('401 UNAUTHORIZED: no token, a malformed one, a Data API token, an expired one (JWT bearer from the token endpoint)', async () => {
    const name = { 'assistant-name': p.sim.credentials.assistantName };
    expectError(await list('', name), 401, 'UNAUTHORIZED');
    expectError(await list('', { ...name, authorization: 'Bearer not.a.jwt' }), 401, 'UNAUTHORIZED');
    expectError(await list('', { ...name, authorization: p.sim.credentials.dataApiKey }), 401, 'UNAUTHORIZED');
    expectError(await list('', { ...name, authorization: `Bearer ${await p.token('data')}` }), 401, 'UNAUTHORIZED');
    const token = await p.token('conversations', BEN);
    expect((await list('', { ...name, authorization: `Bearer ${token}` })).status).toBe(200);
    await p.sim.advanceClock(3601_000);
    expectError(await list('', { ...name, authorization: `Bearer ${token}` }), 401, 'UNAUTHORIZED');
    headers = await p.conversationHeaders(BEN);
  });
  it("403 FORBIDDEN: Assistant-Name missing or not the organization's assistant", async () => {
    expectError(await list('', { authorization: headers.authorization! }), 403, 'FORBIDDEN');
    expectError(await list('', { ...headers, 'assistant-name': 'someone-else' }), 403, 'FORBIDDEN');
  });
  it('404 NOT_FOUND: a conversation that does not exist', async () => {
    expectError(await list('', headers, '/rest/v1', 'conv_doesNotExist123'), 404, 'NOT_FOUND');
    expectError(await p.call('/rest/v1/nothing-here', { headers }), 404, 'NOT_FOUND');
  });
  it('429 RATE_LIMIT_EXCEEDED with Retry-After, then served again after the minute', async () => {
    p.sim.setHostility({ rateLimitPerMinute: { conversations: 3 } });
    try {
      const answers = [];
      for (let i = 0; i < 4; i++) answers.push(await list());
      expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 429]);
      expectError(answers[3], 429, 'RATE_LIMIT_EXCEEDED');
      expect(Number(answers[3]!.headers.get('retry-after'))).toBeGreaterThan(0);
      await p.sim.advanceClock(60_000);
      expect((await list()).status).toBe(200);
    } finally {
      p.sim.setHostility({ rateLimitPerMinute: { conversations: 600 } });
    }
  });
  it('500 INTERNAL_ERROR (an injected fault)', async () => {
    p.sim.setHostility({ faultRate: 1, faultStatuses: [500] });
    try {
      expectError(await list(), 500, 'INTERNAL_ERROR');
    } finally {
      p.sim.setHostility({ faultRate: 0 });
    }
  });
});

describe('Submit feedback: callback_id of feedback.helpful or feedback.unhelpful passed back exactly decides which rating is recorded; additional_feedback optional; 200 {"status":"SUBMITTED"}', () => {
  const feedback = (m: any, body: unknown, base = '/rest/v1', raw?: string) =>
    p.call(
      `${base}/conversations/${m.conversation_id}/responses/${m.response_id}/messages/${m.message_id}/feedback`,
      raw === undefined ? { body, headers } : { raw, headers },
    );

  it('helpful and unhelpful, with and without a comment', async () => {
    const a = finalMessage((await p.ask(BEN, 'expense receipts')).messages);
    const b = finalMessage((await p.ask(BEN, 'holiday calendar')).messages);
    expect((await feedback(a, { callback_id: a.feedback.helpful.callback_id })).body).toEqual({ status: 'SUBMITTED' });
    expect((await feedback(b, { callback_id: b.feedback.unhelpful.callback_id, additional_feedback: 'Outdated dates' })).body).toEqual({ status: 'SUBMITTED' });
    const recorded = (await p.admin('/feedback')).body.feedback;
    expect(recorded.slice(-2)).toEqual([
      expect.objectContaining({ message_id: a.message_id, rating: 'helpful', additional_feedback: null }),
      expect.objectContaining({ message_id: b.message_id, rating: 'unhelpful', additional_feedback: 'Outdated dates' }),
    ]);
  });
  it('a callback_id not of this message, altered, missing, or a message without feedback: 400 INVALID_REQUEST; an unknown message: 404', async () => {
    const { messages } = await p.ask(BEN, 'cluster upgrade');
    const a = finalMessage(messages);
    const b = finalMessage((await p.ask(BEN, 'salary')).messages);
    for (const body of [
      { callback_id: b.feedback.helpful.callback_id },
      { callback_id: `${a.feedback.helpful.callback_id}x` },
      {},
      { callback_id: 7 },
      { callback_id: a.feedback.helpful.callback_id, additional_feedback: 'x'.repeat(1001) },
    ]) {
      const res = await feedback(a, body);
      expect([res.status, res.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
    }
    expect((await feedback(a, undefined, '/rest/v1', '{not json')).body.error.code).toBe('INVALID_REQUEST');
    const progress = messages[1];
    expect((await feedback(progress, { callback_id: a.feedback.helpful.callback_id })).body.error.code).toBe('INVALID_REQUEST');
    expect((await feedback({ ...a, message_id: 'msg_unknown' }, { callback_id: a.feedback.helpful.callback_id })).status).toBe(404);
  });
});

describe("A conversation is its person's: another person's token, or a token acting for no person, neither lists its messages nor rates them (404 NOT_FOUND, 403 FORBIDDEN)", () => {
  const CAL = 'cal@example.test';
  const feedbackPath = (m: any, base = '/rest/v1') => `${base}/conversations/${m.conversation_id}/responses/${m.response_id}/messages/${m.message_id}/feedback`;
  const expectError = (res: any, status: number, code: string) =>
    expect([res.status, res.body]).toEqual([status, { error: { code, message: expect.any(String) } }]);

  it.each(['/rest/v1', '/assistant/v1'])('on %s: listing is refused to anyone but the asker, and nothing of the conversation is shown', async (base) => {
    const asked = finalMessage((await p.ask(BEN, 'expense receipts')).messages);
    expect((await list('', headers, base, asked.conversation_id)).status).toBe(200);
    const other = await list('', await p.conversationHeaders(CAL), base, asked.conversation_id);
    expectError(other, 404, 'NOT_FOUND');
    expect(JSON.stringify(other.body)).not.toContain(asked.message_id);
    expectError(await list('', await p.conversationHeaders(), base, asked.conversation_id), 403, 'FORBIDDEN');
  });

  it("feedback on another person's answer is refused and not recorded; the asker's own is", async () => {
    const asked = finalMessage((await p.ask(BEN, 'holiday calendar')).messages);
    const body = { callback_id: asked.feedback.helpful.callback_id };
    const before = (await p.admin('/feedback')).body.feedback.length;
    expectError(await p.call(feedbackPath(asked), { body, headers: await p.conversationHeaders(CAL) }), 404, 'NOT_FOUND');
    expectError(await p.call(feedbackPath(asked), { body, headers: await p.conversationHeaders() }), 403, 'FORBIDDEN');
    expect((await p.admin('/feedback')).body.feedback.length).toBe(before);
    expect((await p.call(feedbackPath(asked), { body, headers })).body).toEqual({ status: 'SUBMITTED' });
  });
});

describe('/assistant/v1 is deprecated: endpoints are the same on both; /rest/v1 does not return the deprecated response header x-service-root-uuid', () => {
  it('the same messages on both bases; only the deprecated one sends x-service-root-uuid and Deprecation', async () => {
    const stable = await list('?limit=5');
    const old = await list('?limit=5', headers, '/assistant/v1');
    expect(old.status).toBe(200);
    expect(old.body.messages).toEqual(stable.body.messages);
    expect(stable.headers.get('x-service-root-uuid')).toBeNull();
    expect(old.headers.get('x-service-root-uuid')).toMatch(/^[0-9a-f-]{36}$/);
    expect(old.headers.get('deprecation')).toBeTruthy();
    expect(old.headers.get('link')).toContain('/rest/v1');
  });
  it('feedback works on the deprecated base too', async () => {
    const a = finalMessage((await p.ask(BEN, 'offsite')).messages);
    const res = await p.call(`/assistant/v1/conversations/${a.conversation_id}/responses/${a.response_id}/messages/${a.message_id}/feedback`, {
      body: { callback_id: a.feedback.helpful.callback_id },
      headers,
    });
    expect([res.status, res.body, res.headers.get('x-service-root-uuid') !== null]).toEqual([200, { status: 'SUBMITTED' }, true]);
  });
});
