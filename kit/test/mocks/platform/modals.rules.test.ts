import { LIFECYCLE_TABLE } from '../../../src/mocks/platform/api/lifecycle-table';
import { finalMessage, startSimulator, type RunningSimulator } from './simulator-harness';

/** Modals: a new capability of the Conversations API, served only on /rest/v1. */
let p: RunningSimulator;
let headers: Record<string, string>;
let answer: any;
let progress: any;
const BEN = 'ben@example.test';

beforeAll(async () => {
  p = await startSimulator({ now: () => Date.UTC(2025, 5, 1) });
  const asked = await p.ask(BEN, 'offsite lisbon venue');
  answer = finalMessage(asked.messages);
  progress = asked.messages[1];
  headers = await p.conversationHeaders(BEN);
});
afterAll(() => p.close());

const modalsOf = (m: any, base = '/rest/v1') => `${base}/conversations/${m.conversation_id}/responses/${m.response_id}/messages/${m.message_id}/modals`;
const open = async (m: any = answer, base = '/rest/v1', h = headers) => p.call(modalsOf(m, base), { method: 'POST', body: {}, headers: h });

describe('New capabilities such as modals are served only on /rest/v1', () => {
  it('on /rest/v1: a final assistant message opens its modal, which can be read back and submitted once as its feedback', async () => {
    const opened = await open();
    expect([opened.status, opened.headers.get('x-api-lifecycle'), opened.headers.get('x-service-root-uuid')]).toEqual([201, 'stable', null]);
    const modal = opened.body.modal;
    expect(modal).toMatchObject({
      modal_id: expect.stringMatching(/^modal_[0-9A-Za-z]+$/),
      type: 'FEEDBACK',
      status: 'OPEN',
      conversation_id: answer.conversation_id,
      response_id: answer.response_id,
      message_id: answer.message_id,
      title: { type: 'PLAIN_TEXT', plain_text: { text: expect.any(String) } },
      submit_label: expect.any(String),
    });
    expect(modal.fields.map((f: any) => [f.field_id, f.type, f.required])).toEqual([
      ['rating', 'CHOICE', true],
      ['comment', 'TEXT', false],
    ]);

    const path = `/rest/v1/conversations/${answer.conversation_id}/modals/${modal.modal_id}`;
    expect((await p.call(path, { headers })).body.modal).toEqual(modal);
    const submitted = await p.call(`${path}/submit`, { body: { values: { rating: 'UNHELPFUL', comment: 'The venue is wrong.' } }, headers });
    expect([submitted.status, submitted.body]).toEqual([200, { status: 'SUBMITTED' }]);
    expect((await p.call(path, { headers })).body.modal.status).toBe('SUBMITTED');
    expect((await p.admin('/feedback')).body.feedback.at(-1)).toMatchObject({
      message_id: answer.message_id,
      rating: 'unhelpful',
      additional_feedback: 'The venue is wrong.',
    });
    const again = await p.call(`${path}/submit`, { body: { values: { rating: 'HELPFUL' } }, headers });
    expect([again.status, again.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
  });

  it('on the deprecated /assistant/v1 and on a piloted beta the same paths are 404 NOT_FOUND, saying where modals are served', async () => {
    for (const base of ['/assistant/v1', '/rest/v2beta1']) {
      const res = await open(answer, base);
      expect([base, res.status, res.body.error.code]).toEqual([base, 404, 'NOT_FOUND']);
      expect(res.body.error.message).toContain('served only on /rest/v1');
    }
    const modal = (await open()).body.modal;
    for (const base of ['/assistant/v1', '/rest/v2beta1']) {
      const path = `${base}/conversations/${answer.conversation_id}/modals/${modal.modal_id}`;
      expect((await p.call(path, { headers })).status).toBe(404);
      expect((await p.call(`${path}/submit`, { body: { values: { rating: 'HELPFUL' } }, headers })).status).toBe(404);
    }
    // The endpoints the bases share still work on both.
    expect((await p.call(`/assistant/v1/conversations/${answer.conversation_id}/messages`, { headers })).status).toBe(200);
  });

  it('the lifecycle table has modal rows for /rest/v1 only', () => {
    const modalRows = LIFECYCLE_TABLE.filter((r) => r.path.includes('/modals'));
    expect(modalRows.map((r) => r.id).sort()).toEqual([
      'conversations.get-modal@rest/v1',
      'conversations.open-modal@rest/v1',
      'conversations.submit-modal@rest/v1',
    ]);
    expect(modalRows.every((r) => r.path.startsWith('/rest/v1/') && r.onlyOn === '/rest/v1')).toBe(true);
  });
});

describe('Modals follow the Conversations API rules: JWT, Assistant-Name, the conversation, its error format', () => {
  it('401 without a token, 403 for another assistant, 404 for another conversation or message', async () => {
    expect((await open(answer, '/rest/v1', { 'assistant-name': headers['assistant-name'] as string })).body.error.code).toBe('UNAUTHORIZED');
    expect((await open(answer, '/rest/v1', { ...headers, 'assistant-name': 'someone-else' })).body.error.code).toBe('FORBIDDEN');
    expect((await open({ ...answer, message_id: 'msg_unknown' })).status).toBe(404);
    const other = finalMessage((await p.ask(BEN, 'holidays')).messages);
    const modal = (await open()).body.modal;
    expect((await p.call(`/rest/v1/conversations/${other.conversation_id}/modals/${modal.modal_id}`, { headers })).status).toBe(404);
  });

  it('only final assistant messages have a modal; a submission needs a rating and a comment of at most 1,000 characters', async () => {
    const res = await open(progress);
    expect([res.status, res.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
    const path = `/rest/v1/conversations/${answer.conversation_id}/modals/${(await open()).body.modal.modal_id}/submit`;
    for (const body of [{}, { values: {} }, { values: { rating: 'MAYBE' } }, { values: { rating: 'HELPFUL', comment: 'x'.repeat(1001) } }]) {
      const bad = await p.call(path, { body, headers });
      expect([bad.status, bad.body.error.code]).toEqual([400, 'INVALID_REQUEST']);
    }
  });

  it('a setting can remove the rows like any other: 410 in the Conversations format', async () => {
    await p.admin('/settings', { method: 'PATCH', body: { lifecycle: { 'conversations.open-modal@rest/v1': 'removed' } } });
    try {
      const res = await open();
      expect([res.status, res.body.error.code]).toEqual([410, 'NOT_FOUND']);
    } finally {
      await p.admin('/settings', { method: 'PATCH', body: { lifecycle: { 'conversations.open-modal@rest/v1': 'stable' } } });
    }
  });
});

describe("A conversation is its person's: its modals are opened, read and submitted by the asker only", () => {
  it("another person's token gets 404 NOT_FOUND on each, a token acting for no person 403 FORBIDDEN", async () => {
    const modal = (await open()).body.modal;
    const path = `/rest/v1/conversations/${answer.conversation_id}/modals/${modal.modal_id}`;
    for (const [h, status] of [
      [await p.conversationHeaders('cal@example.test'), 404],
      [await p.conversationHeaders(), 403],
    ] as const) {
      expect((await open(answer, '/rest/v1', h)).status).toBe(status);
      expect((await p.call(path, { headers: h })).status).toBe(status);
      expect((await p.call(`${path}/submit`, { method: 'POST', body: { values: { rating: 'helpful' } }, headers: h })).status).toBe(status);
    }
    expect((await p.call(path, { headers })).body.modal.status).toBe('OPEN');
  });
});
