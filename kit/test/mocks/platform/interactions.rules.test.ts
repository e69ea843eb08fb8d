import { followAll } from './data-api-setup';
import { startSimulator, type RunningSimulator } from './simulator-harness';

let p: RunningSimulator;
let key: Record<string, string>;
const BASE = '/export/v1/records';

beforeAll(async () => {
  p = await startSimulator({ now: () => Date.UTC(2025, 3, 1), settings: { dataPageSize: 2 } });
  key = { authorization: p.sim.credentials.dataApiKey };
});
afterAll(() => p.close());

describe('Data API interactions: questions and feedback ratings', () => {
  it('each question is an interaction, named by the plugin resources it surfaced; each rating (feedback endpoint or modal) an interaction whose parent is that question', async () => {
    const first = await p.ask('ada@example.test', 'holidays office');
    const second = await p.ask('ada@example.test', 'expenses', { conversation_id: first.conversation_id });
    const [a, b] = [first.messages.at(-1), second.messages.at(-1)];
    const headers = await p.conversationHeaders('ada@example.test');
    const rated = await p.call(`/rest/v1/conversations/${first.conversation_id}/responses/${a.response_id}/messages/${a.message_id}/feedback`, {
      headers,
      body: { callback_id: a.feedback.unhelpful.callback_id, additional_feedback: 'outdated' },
    });
    expect(rated.status).toBe(200);
    const modal = await p.call(`/rest/v1/conversations/${first.conversation_id}/responses/${b.response_id}/messages/${b.message_id}/modals`, {
      headers,
      body: {},
    });
    expect(
      (
        await p.call(`/rest/v1/conversations/${first.conversation_id}/modals/${modal.body.modal.modal_id}/submit`, {
          headers,
          body: { values: { rating: 'HELPFUL' } },
        })
      ).status,
    ).toBe(200);

    const { items, pages } = await followAll(p, `${BASE}/interactions`, key);
    expect(pages).toBe(2);
    const asked = items.filter((i) => i.type === 'INTERACTION_TYPE_FREE_TEXT');
    const ratings = items.filter((i) => i.type === 'INTERACTION_TYPE_FEEDBACK');
    expect(asked.map((q) => q.detail.content).sort()).toEqual(['expenses', 'holidays office']);
    const questions = ['holidays office', 'expenses'].map((text) => asked.find((q) => q.detail.content === text));
    const resources = (await followAll(p, `${BASE}/plugin-resources`, key)).items;
    for (const [q, conv] of [
      [questions[0], first],
      [questions[1], second],
    ] as const) {
      expect(resources.filter((r) => r.interaction_id === q.id).length).toBeGreaterThan(0);
      expect(q).toMatchObject({ actor: 'USER', conversation_id: conv.conversation_id, parent_interaction_id: null, user_id: resources[0].user_id });
    }
    // Both at the same instant (a fixed clock): compared in label order.
    expect(ratings.map((r) => [r.label, r.parent_interaction_id, r.detail.resource_id, r.detail.content]).sort()).toEqual([
      ['helpful', questions[1].id, b.message_id, ''],
      ['unhelpful', questions[0].id, a.message_id, 'outdated'],
    ]);
  });

  it('filters like plugin-resources: $filter on type and label, $select', async () => {
    const res = await p.call(
      `${BASE}/interactions?$filter=${encodeURIComponent("type eq 'INTERACTION_TYPE_FEEDBACK' and label eq 'helpful'")}&$select=id,label,parent_interaction_id`,
      { headers: key },
    );
    expect(res.status).toBe(200);
    expect(res.body.value).toHaveLength(1);
    expect(Object.keys(res.body.value[0]).sort()).toEqual(['id', 'label', 'parent_interaction_id']);
    expect(res.body['@odata.context']).toMatch(/\$metadata#interactions$/);
    expect((await p.call(`${BASE}/interactions?$filter=${encodeURIComponent('cited eq true')}`, { headers: key })).status).toBe(400);
  });
});
