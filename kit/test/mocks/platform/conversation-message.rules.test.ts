import { finalMessage, startSimulator, type RunningSimulator } from './simulator-harness';

/** The seed's Conversation message, read back through the Conversations API (generated corpus, no gateway). */
let p: RunningSimulator;
let messages: any[];
let conversationId: string;
const ADA = 'ada@example.test';

beforeAll(async () => {
  p = await startSimulator();
  const first = await p.ask(ADA, 'cluster upgrade rollback on-call');
  conversationId = first.conversation_id;
  await p.ask(ADA, 'holiday calendar', { conversation_id: conversationId, is_commonmark: true });
  const res = await p.call(`/rest/v1/conversations/${conversationId}/messages`, { headers: await p.conversationHeaders(ADA) });
  expect(res.status).toBe(200);
  messages = res.body.messages;
});
afterAll(() => p.close());

const assistantFinals = () => messages.filter((m) => m.actor === 'ASSISTANT' && m.feedback);

describe('Conversation message: message_id, conversation_id and response_id are base-62 identifiers prefixed by a short resource type (msg_, conv_, resp_)', () => {
  it('every message', () => {
    expect(messages.length).toBe(6);
    for (const m of messages) {
      expect(m.message_id).toMatch(/^msg_[0-9A-Za-z]+$/);
      expect(m.conversation_id).toBe(conversationId);
      expect(m.conversation_id).toMatch(/^conv_[0-9A-Za-z]+$/);
      expect(m.response_id).toMatch(/^resp_[0-9A-Za-z]+$/);
    }
  });
});

describe('Conversation message: actor is USER or ASSISTANT; content and created_at (ISO 8601) are required', () => {
  it('every message', () => {
    for (const m of messages) {
      expect(['USER', 'ASSISTANT']).toContain(m.actor);
      expect(m.content).toBeDefined();
      expect(new Date(m.created_at).toISOString()).toBe(m.created_at);
    }
    expect(messages.filter((m) => m.actor === 'USER').length).toBe(2);
  });
});

describe('Content object: a discriminator type with one matching member (PLAIN_TEXT, COMMONMARK_TEXT, MARKDOWN_TEXT when is_commonmark is not set, CALLBACK_ACTION_CONTENT)', () => {
  const MEMBER: Record<string, string> = {
    PLAIN_TEXT: 'plain_text',
    COMMONMARK_TEXT: 'commonmark_text',
    MARKDOWN_TEXT: 'markdown_text',
    CALLBACK_ACTION_CONTENT: 'callback_action',
  };
  it('each content has exactly its member', () => {
    for (const m of messages) {
      const member = MEMBER[m.content.type];
      expect(Object.keys(m.content).sort()).toEqual(['type', member].sort());
    }
  });
  it('the user text is PLAIN_TEXT; the answer is MARKDOWN_TEXT without is_commonmark and COMMONMARK_TEXT with it', () => {
    const [second, first] = assistantFinals();
    expect(messages.filter((m) => m.actor === 'USER').map((m) => m.content.type)).toEqual(['PLAIN_TEXT', 'PLAIN_TEXT']);
    expect(first.content.type).toBe('MARKDOWN_TEXT');
    expect(second.content.type).toBe('COMMONMARK_TEXT');
  });
  it('CALLBACK_ACTION_CONTENT: a callback_id submitted via input.callback_id on the create-response endpoint', async () => {
    const headers = await p.conversationHeaders(ADA);
    const conv = await p.call('/rest/v1/conversations', { method: 'POST', body: {}, headers });
    const asked = await p.call(`/rest/v1/conversations/${conv.body.conversation_id}/responses`, {
      body: { input: { text: 'office holidays expenses lunch cluster' } },
      headers,
    });
    expect(asked.status).toBe(202);
    const more = finalMessage(asked.body.messages).actions.find((a: any) => a.type === 'CALLBACK_ACTION');
    expect(more).toBeDefined();
    const clicked = await p.call(`/rest/v1/conversations/${conv.body.conversation_id}/responses`, {
      body: { input: { callback_id: more.callback_action.callback_id } },
      headers,
    });
    expect(clicked.status).toBe(202);
    expect(clicked.body.messages[0]).toMatchObject({
      actor: 'USER',
      content: { type: 'CALLBACK_ACTION_CONTENT', callback_action: { callback_id: more.callback_action.callback_id } },
    });
    expect(finalMessage(clicked.body.messages).citations.length).toBeGreaterThan(0);
  });
});

describe('Citation: citation_id (cite_<base62>), url, display with title and body content objects and attributes of string key and value; unique citations of an assistant message', () => {
  it('on every final answer', () => {
    for (const m of assistantFinals()) {
      const ids = m.citations.map((c: any) => c.citation_id);
      expect(new Set(ids).size).toBe(ids.length);
      for (const c of m.citations) {
        expect(c.citation_id).toMatch(/^cite_[0-9A-Za-z]+$/);
        expect(c.url).toMatch(/^https:\/\/intranet\.example\.test\/docs\//);
        expect(c.display.title).toMatchObject({ type: 'PLAIN_TEXT', plain_text: { text: expect.any(String) } });
        expect(c.display.body).toMatchObject({ type: 'PLAIN_TEXT', plain_text: { text: expect.any(String) } });
        for (const a of c.display.attributes) expect([typeof a.key, typeof a.value]).toEqual(['string', 'string']);
      }
    }
  });
});

describe('content_references: only on assistant messages, ascending by offset; citation_id references a citation; offset is a zero-based character position in the message text', () => {
  it('holds for every message', () => {
    for (const m of messages) {
      if (m.actor === 'USER') {
        expect(m.content_references ?? null).toBeNull();
        continue;
      }
      const refs = m.content_references ?? [];
      const text = m.content.markdown_text?.text ?? m.content.commonmark_text?.text ?? m.content.plain_text?.text;
      const cited = new Set((m.citations ?? []).map((c: any) => c.citation_id));
      refs.forEach((r: any, i: number) => {
        expect(cited.has(r.citation_id)).toBe(true);
        expect(Number.isInteger(r.offset) && r.offset >= 0 && r.offset <= text.length).toBe(true);
        if (i > 0) expect(r.offset).toBeGreaterThanOrEqual(refs[i - 1].offset);
      });
    }
    expect(assistantFinals().some((m) => m.content_references.length > 1)).toBe(true);
  });
});

describe('feedback: only on final assistant messages that support feedback; helpful and unhelpful each with a callback_id', () => {
  it('finals carry both callbacks, the others none', () => {
    for (const m of messages) {
      const isFinal = m.actor === 'ASSISTANT' && messages.filter((x) => x.response_id === m.response_id).every((x) => x.created_at <= m.created_at);
      if (isFinal) expect(m.feedback).toEqual({ helpful: { callback_id: expect.any(String) }, unhelpful: { callback_id: expect.any(String) } });
      else expect(m.feedback ?? null).toBeNull();
    }
  });
});

describe('actions: absent when no actions; CALLBACK_ACTION with callback_action.callback_id and label, URL_ACTION with label and url_action.url', () => {
  it('answers open the cited files; messages without actions have no actions key', () => {
    for (const m of messages) {
      if (!m.actions) continue;
      expect(m.actions.length).toBeGreaterThan(0);
      for (const a of m.actions) {
        if (a.type === 'URL_ACTION')
          expect(a).toEqual({ type: 'URL_ACTION', label: expect.any(String), url_action: { url: expect.stringMatching(/^https:/) } });
        else expect(a).toEqual({ type: 'CALLBACK_ACTION', label: expect.any(String), callback_action: { callback_id: expect.any(String) } });
      }
    }
    expect(messages.filter((m) => m.actor === 'USER').every((m) => !('actions' in m))).toBe(true);
    const final = assistantFinals()[1];
    expect(final.actions.filter((a: any) => a.type === 'URL_ACTION').map((a: any) => a.url_action.url)).toEqual(final.citations.map((c: any) => c.url));
  });
  it('an answer with nothing to cite has no actions', async () => {
    const none = finalMessage((await p.ask(ADA, 'zzzqqq nonexistent')).messages);
    expect(none.citations).toEqual([]);
    expect('actions' in none).toBe(false);
  });
});
