/**
 * Webhooks through the mock's HTTP surface, with a real receiving server on loopback. The seed
 * says only that webhooks notify about events on resources (tasks, projects, stories) and have
 * a filter object; create, handshake, signature, payload and retries follow the reference
 * ("Webhooks", §7).
 */
import crypto from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { handBuiltOrg, manualClock, member, startMock, type RunningMock } from './mock-harness';

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

/** A receiving endpoint: echoes the handshake secret unless told not to, fails the first `failures` deliveries. */
class Receiver {
  readonly received: Received[] = [];
  echoHandshake = true;
  failures = 0;
  private server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      const secret = req.headers['x-hook-secret'];
      if (typeof secret === 'string') {
        this.received.push({ headers: req.headers, body });
        if (this.echoHandshake) res.setHeader('X-Hook-Secret', secret);
        res.writeHead(this.echoHandshake ? 200 : 400).end();
        return;
      }
      if (this.failures > 0) {
        this.failures--;
        this.received.push({ headers: req.headers, body });
        res.writeHead(500).end();
        return;
      }
      this.received.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  url = '';

  async start(): Promise<void> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', () => resolve()));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
  }

  deliveries(): Received[] {
    return this.received.filter((r) => r.headers['x-hook-signature'] !== undefined);
  }

  handshakeSecret(): string {
    const h = this.received.find((r) => typeof r.headers['x-hook-secret'] === 'string');
    return h?.headers['x-hook-secret'] as string;
  }

  async until(check: () => boolean): Promise<void> {
    while (!check()) await new Promise((r) => setTimeout(r, 10));
  }

  close(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

const clock = manualClock();
let m: RunningMock;
let ids: { org: string; p: string; q: string; parent: string; sub: string; alice: string };

beforeAll(async () => {
  const { organization, built } = handBuiltOrg((s, org) => {
    const alice = member(s, org, 'Alice Hooks');
    const team = s.people.addTeam({ workspace: org, name: 'Hooks team' });
    const p = s.projects.add({ workspace: org, team: team.gid, name: 'P', owner: alice });
    const q = s.projects.add({ workspace: org, team: team.gid, name: 'Q', owner: alice });
    const parent = s.tasks.add({ workspace: org, name: 'Parent', memberships: [{ project: p.gid }] });
    const sub = s.tasks.add({ workspace: org, name: 'Sub', parent: parent.gid });
    return { org, p: p.gid, q: q.gid, parent: parent.gid, sub: sub.gid, alice };
  }, clock.now);
  m = await startMock({ organization, now: clock.now, hostility: { webhookRetryDelayMs: 5 } });
  ids = built;
});
afterAll(() => m.close());

const receivers: Receiver[] = [];
async function receiver(): Promise<Receiver> {
  const r = new Receiver();
  await r.start();
  receivers.push(r);
  return r;
}
afterAll(() => Promise.all(receivers.map((r) => r.close())));

async function create(resource: string, target: string, filters?: unknown): Promise<{ status: number; body: any; headers: Headers }> {
  return m.api('/webhooks', { body: { data: { resource, target, ...(filters !== undefined ? { filters } : {}) } } });
}

describe('Webhooks (reference): create needs a resource and a target; filters are validated', () => {
  it('400 without target, without resource, or with a malformed filter', async () => {
    const r = await receiver();
    expect((await m.api('/webhooks', { body: { data: { resource: ids.p } } })).status).toBe(400);
    expect((await m.api('/webhooks', { body: { data: { target: r.url } } })).status).toBe(400);
    expect((await create(ids.p, r.url, [{ action: 'changed' }])).status).toBe(400);
    expect((await create(ids.p, r.url, [{ resource_type: 'task', action: 'exploded' }])).status).toBe(400);
    expect((await create(ids.p, r.url, 'tasks')).status).toBe(400);
    expect((await create('999999', r.url)).status).toBe(404);
  });
});

describe('Webhooks (reference): the X-Hook-Secret handshake decides whether the create succeeds', () => {
  it('201 with the webhook when the target echoes the secret while the create is in flight', async () => {
    const r = await receiver();
    const res = await create(ids.p, r.url);
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      gid: expect.any(String),
      resource_type: 'webhook',
      active: true,
      target: r.url,
      resource: { gid: ids.p, resource_type: 'project', name: 'P' },
      filters: [],
    });
    expect(r.handshakeSecret()).toMatch(/^[0-9a-f]{32,}$/);
    expect(res.body['X-Hook-Secret']).toBe(r.handshakeSecret());
  });

  it('400 (and no webhook) when the target does not echo the secret', async () => {
    const r = await receiver();
    r.echoHandshake = false;
    const res = await create(ids.q, r.url);
    expect(res.status).toBe(400);
    const list = await m.api(`/webhooks?workspace=${ids.org}`);
    expect(list.body.data.map((w: any) => w.target)).not.toContain(r.url);
  });

  it('400 when the target cannot be reached', async () => {
    const r = await receiver();
    const url = r.url;
    await r.close();
    expect((await create(ids.q, url)).status).toBe(400);
  });
});

describe('Webhooks (seed "Events"): deliveries carry the same events as the event stream, bubbling up', () => {
  it('a change to a subtask reaches the project webhook, signed with the handshake secret', async () => {
    const r = await receiver();
    expect((await create(ids.p, r.url)).status).toBe(201);
    const put = await m.api(`/tasks/${ids.sub}`, { method: 'PUT', body: { data: { name: 'Sub renamed' } } });
    expect(put.status).toBe(200);
    await r.until(() => r.deliveries().length > 0);
    const [d] = r.deliveries();
    const expected = crypto.createHmac('sha256', r.handshakeSecret()).update(d!.body).digest('hex');
    expect(d!.headers['x-hook-signature']).toBe(expected);
    const body = JSON.parse(d!.body);
    expect(body.events).toEqual([
      expect.objectContaining({
        action: 'changed',
        resource: { gid: ids.sub, resource_type: 'task' },
        change: expect.objectContaining({ field: 'name', action: 'changed' }),
      }),
    ]);
  });

  it('filters pick the events a webhook receives', async () => {
    const r = await receiver();
    expect((await create(ids.q, r.url, [{ resource_type: 'story', action: 'added' }])).status).toBe(201);
    const task = await m.api('/tasks', { body: { data: { name: 'In Q', projects: [ids.q] } } });
    expect(task.status).toBe(201);
    await m.api(`/tasks/${task.body.data.gid}/stories`, { body: { data: { text: 'hello' } } });
    await r.until(() => r.deliveries().some((d) => JSON.parse(d.body).events.length > 0));
    const events = r.deliveries().flatMap((d) => JSON.parse(d.body).events);
    expect(events.length).toBeGreaterThan(0);
    expect(events.every((e: any) => e.resource.resource_type === 'story' && e.action === 'added')).toBe(true);
  });
});

describe('Webhooks (reference): a non-2xx answer is retried, a bounded number of times', () => {
  it('the same events come again after a 500', async () => {
    const r = await receiver();
    expect((await create(ids.p, r.url)).status).toBe(201);
    r.failures = 1;
    await m.api(`/tasks/${ids.parent}`, { method: 'PUT', body: { data: { notes: 'retry me' } } });
    await r.until(() => r.deliveries().length >= 2);
    const [first, second] = r.deliveries();
    expect(second!.body).toBe(first!.body);
    const gid = (await m.api(`/webhooks?workspace=${ids.org}`)).body.data.find((w: any) => w.target === r.url).gid;
    const hook = await m.api(`/webhooks/${gid}`);
    expect(hook.body.data).toMatchObject({ last_success_at: expect.any(String), last_failure_at: expect.any(String) });
  });
});

describe('Webhooks (seed "Events" rule 1): delivery is at most once', () => {
  it('with eventLossRate 1 an event is never delivered (nor retried later); the next kept one is', async () => {
    const r = await receiver();
    expect((await create(ids.p, r.url)).status).toBe(201);
    m.mock.setHostility({ eventLossRate: 1 });
    try {
      await m.api(`/tasks/${ids.parent}`, { method: 'PUT', body: { data: { notes: 'lost' } } });
    } finally {
      m.mock.setHostility({ eventLossRate: 0 });
    }
    await m.api(`/tasks/${ids.parent}`, { method: 'PUT', body: { data: { notes: 'kept' } } });
    await r.until(() => r.deliveries().length > 0);
    const events = r.deliveries().flatMap((d) => JSON.parse(d.body).events);
    expect(events).toHaveLength(1);
  });
});

describe('Webhooks (reference): listing, reading and deleting', () => {
  it('GET /webhooks?workspace= lists, GET /webhooks/{gid} reads, DELETE stops deliveries', async () => {
    const r = await receiver();
    const made = await create(ids.q, r.url);
    expect((await m.api('/webhooks')).status).toBe(400);
    const list = await m.api(`/webhooks?workspace=${ids.org}&resource=${ids.q}`);
    expect(list.body.data).toContainEqual(expect.objectContaining({ gid: made.body.data.gid, target: r.url }));
    expect((await m.api(`/webhooks/${made.body.data.gid}`)).body.data.target).toBe(r.url);
    expect((await m.api(`/webhooks/${made.body.data.gid}`, { method: 'DELETE' })).status).toBe(200);
    expect((await m.api(`/webhooks/${made.body.data.gid}`)).status).toBe(404);
    await m.api('/tasks', { body: { data: { name: 'After delete', projects: [ids.q] } } });
    await m.mock.context.webhooks.settled();
    expect(r.deliveries()).toHaveLength(0);
  });
});
