import fc from 'fast-check';
import { startSimulator, type RunningSimulator } from './simulator-harness';

/** Cursors and limits of List conversation messages are open-ended input: any of them gets a 200 or the documented 400, never a 500. */
let p: RunningSimulator;
let conv: string;
let headers: Record<string, string>;
let total: number;

beforeAll(async () => {
  p = await startSimulator();
  conv = (await p.ask('dee@example.test', 'welcome')).conversation_id;
  for (let i = 0; i < 6; i++) await p.ask('dee@example.test', `expenses ${i}`, { conversation_id: conv });
  total = 21;
  headers = await p.conversationHeaders('dee@example.test');
});
afterAll(() => p.close());

const list = (query: string) => p.call(`/rest/v1/conversations/${conv}/messages?${query}`, { headers });

describe('List conversation messages: cursor is an opaque pagination cursor', () => {
  it('any cursor string is 400 INVALID_CURSOR in the envelope, never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.base64String(), fc.stringMatching(/^[A-Za-z0-9_-]{1,40}\.[A-Za-z0-9_-]{22}$/)), async (cursor) => {
        const res = await list(`cursor=${encodeURIComponent(cursor)}`);
        expect([res.status, res.body?.error?.code]).toEqual([400, 'INVALID_CURSOR']);
      }),
      { numRuns: 60 },
    );
  });

  it('a served cursor with any character changed is refused', async () => {
    const cursor = (await list('limit=3')).body.metadata.next_cursor as string;
    await fc.assert(
      fc.asyncProperty(fc.nat({ max: cursor.length - 1 }), fc.constantFrom(...'AbZ09_-.'), async (i, c) => {
        fc.pre(cursor[i] !== c);
        const res = await list(`cursor=${encodeURIComponent(cursor.slice(0, i) + c + cursor.slice(i + 1))}`);
        expect(res.status).toBe(400);
      }),
      { numRuns: 40 },
    );
  });

  it('for any limit, following next_cursor yields every message exactly once, newest first', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 100 }), async (limit) => {
        const ids: string[] = [];
        const times: number[] = [];
        let cursor: string | null = null;
        for (let guard = 0; guard < 50; guard++) {
          const res: any = await list(`limit=${limit}${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
          expect(res.status).toBe(200);
          expect(res.body.messages.length).toBeLessThanOrEqual(limit);
          ids.push(...res.body.messages.map((m: any) => m.message_id));
          times.push(...res.body.messages.map((m: any) => Date.parse(m.created_at)));
          cursor = res.body.metadata.next_cursor;
          if (!cursor) break;
        }
        expect(new Set(ids).size).toBe(total);
        expect(ids.length).toBe(total);
        expect([...times].sort((a, b) => b - a)).toEqual(times);
      }),
      { numRuns: 25 },
    );
  });

  it('any limit outside 1 to 100 is a 400, never a 500', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string(), fc.integer({ min: -1000, max: 0 }).map(String), fc.integer({ min: 101, max: 1e9 }).map(String)), async (limit) => {
        fc.pre(!/^(0*[1-9]\d?|0*100)$/.test(limit));
        const res = await list(`limit=${encodeURIComponent(limit)}`);
        expect([res.status, res.body?.error?.code]).toEqual([400, 'INVALID_CURSOR']);
      }),
      { numRuns: 60 },
    );
  });
});
