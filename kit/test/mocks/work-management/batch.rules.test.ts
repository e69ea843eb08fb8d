import { startMock, type RunningMock } from './mock-harness';

let m: RunningMock;
let project: string;
let tasks: string[];

beforeAll(async () => {
  m = await startMock({ seed: 'batch', size: 'tiny', hostility: { rateLimitPerMinute: 0, maxConcurrentReads: 0, maxConcurrentWrites: 0 } });
  project = m.mock.model.indexes.projectsByWorkspace.get(m.mock.organization.organization)?.[0] as string;
  tasks = (m.mock.model.indexes.tasksByWorkspace.get(m.mock.organization.organization) ?? []).slice(0, 3);
});
afterAll(() => m.close());
afterEach(() => {
  m.mock.setHostility({ rateLimitPerMinute: 0, maxConcurrentReads: 0, maxConcurrentWrites: 0, latencyMs: { min: 0, max: 0 } });
  m.mock.context.limiter.reset();
});

const batch = (actions: unknown[], token?: string) => m.api('/batch', { body: { data: { actions } }, ...(token !== undefined ? { token } : {}) });
const get = (relative_path: string, extra: Record<string, unknown> = {}) => ({ relative_path, method: 'get', ...extra });

describe('Batch rule 1: at most 10 actions per request', () => {
  it('10 actions run; 11 are rejected with 400', async () => {
    const ten = await batch(Array.from({ length: 10 }, () => get('/users/me')));
    expect(ten.status).toBe(200);
    expect(ten.body.data).toHaveLength(10);
    const eleven = await batch(Array.from({ length: 11 }, () => get('/users/me')));
    expect(eleven.status).toBe(400);
    expect(eleven.body.errors[0].message).toMatch(/at most 10 actions/);
  });
});

describe('Batch rule 2: an empty action list gives 400', () => {
  it('[] and a missing list are 400', async () => {
    expect((await batch([])).status).toBe(400);
    expect((await m.api('/batch', { body: { data: {} } })).status).toBe(400);
  });
});

describe("Batch rule 3: actions run in parallel with no ordering guarantee; an action cannot use another's output", () => {
  it('results come back in action order, each answering its own request', async () => {
    const res = await batch([
      get(`/tasks/${tasks[0]}`, { options: { fields: ['name'] } }),
      get('/users/me'),
      get(`/tasks/${tasks[1]}`, { data: { opt_fields: 'name' } }),
    ]);
    expect(res.body.data.map((r: { status_code: number }) => r.status_code)).toEqual([200, 200, 200]);
    expect(res.body.data[0].body.data.gid).toBe(tasks[0]);
    expect(res.body.data[0].body.data).toEqual({ gid: tasks[0], name: expect.any(String) });
    expect(res.body.data[1].body.data.gid).toBe(m.mock.organization.serviceAccount);
    expect(res.body.data[2].body.data.gid).toBe(tasks[1]);
  });

  it('actions are independent: one failing does not stop the others', async () => {
    const res = await batch([
      get('/tasks/1999999999999999'),
      get(`/tasks/${tasks[2]}`),
      { relative_path: `/tasks/${tasks[2]}`, method: 'put', data: { name: 'renamed in batch' } },
    ]);
    expect(res.body.data.map((r: { status_code: number }) => r.status_code)).toEqual([404, 200, 200]);
  });

  it("a placeholder for another action's output is just a bad id", async () => {
    const res = await batch([{ relative_path: '/tasks', method: 'post', data: { name: 'made in a batch', projects: [project] } }, get('/tasks/$0.gid')]);
    expect(res.body.data[0].status_code).toBe(201);
    expect(res.body.data[0].headers.location).toMatch(/\/tasks\/\d+$/);
    expect(res.body.data[1].status_code).toBe(404);
  });
});

describe('Batch rule 4: the response is 200 even when every action fails', () => {
  it('all-failing actions still give 200 with per-action errors', async () => {
    const res = await batch([
      get('/tasks/1999999999999999'),
      get('/no/such/route'),
      { relative_path: '/tasks', method: 'post', data: {} },
      { relative_path: '/users/me', method: 'fly' },
    ]);
    expect(res.status).toBe(200);
    expect(res.body.data.map((r: { status_code: number }) => r.status_code)).toEqual([404, 404, 400, 400]);
    for (const r of res.body.data) expect(r.body.errors[0].message).toEqual(expect.any(String));
  });

  it('missing authorization or malformed JSON fail the whole request', async () => {
    expect((await batch([get('/users/me')], '')).status).toBe(401);
    expect((await m.api('/batch', { method: 'POST', raw: '{"data": {"actions": [' })).status).toBe(400);
  });
});

describe('Batch rule 5: each action counts against the rate and concurrency limiters; if any would exceed a limit, the whole request fails with 429', () => {
  it('each action is one request against the per-minute quota; the batch itself costs nothing', async () => {
    m.mock.setHostility({ rateLimitPerMinute: 12 });
    expect((await batch(Array.from({ length: 10 }, () => get('/users/me')))).status).toBe(200);
    expect((await m.api('/users/me')).status).toBe(200); // 11
    expect((await m.api('/users/me')).status).toBe(200); // 12
    const over = await batch([get('/users/me')]);
    expect(over.status).toBe(429);
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);
  });

  it('a batch that would exceed the quota fails whole, no action runs', async () => {
    m.mock.setHostility({ rateLimitPerMinute: 5 });
    const before = m.mock.model.indexes.tasks.size;
    const res = await batch(Array.from({ length: 6 }, () => ({ relative_path: '/tasks', method: 'post', data: { name: 'x', projects: [project] } })));
    expect(res.status).toBe(429);
    expect(m.mock.model.indexes.tasks.size).toBe(before);
  });

  it('more actions than the concurrent limit allows fail the whole batch with 429', async () => {
    m.mock.setHostility({ maxConcurrentReads: 3, maxConcurrentWrites: 2 });
    expect((await batch(Array.from({ length: 3 }, () => get('/users/me')))).status).toBe(200);
    expect((await batch(Array.from({ length: 4 }, () => get('/users/me')))).status).toBe(429);
    const writes = Array.from({ length: 3 }, () => ({ relative_path: `/tasks/${tasks[0]}`, method: 'put', data: { notes: 'n' } }));
    expect((await batch(writes)).status).toBe(429);
  });
});

describe('Batch rule 6: uploading attachments, organization exports, SCIM and nested batches give 400 for that action', () => {
  it.each([
    ['attachment upload', { relative_path: '/attachments', method: 'post', data: { parent: 'x' } }],
    ['task attachment upload', { relative_path: '/tasks/1/attachments', method: 'post', data: {} }],
    ['creating an organization export', { relative_path: '/organization_exports', method: 'post', data: { organization: '1' } }],
    ['getting an organization export', { relative_path: '/organization_exports/123', method: 'get' }],
    ['deleting an organization export', { relative_path: '/organization_exports/123', method: 'delete' }],
    ['a SCIM operation', { relative_path: '/scim/v2/Users', method: 'get' }],
    ['a nested batch', { relative_path: '/batch', method: 'post', data: { actions: [get('/users/me')] } }],
  ])('%s → 400 for that action only', async (_what, action) => {
    const res = await batch([action, get('/users/me')]);
    expect(res.status).toBe(200);
    expect(res.body.data[0].status_code).toBe(400);
    expect(res.body.data[0].body.errors[0].message).toEqual(expect.any(String));
    expect(res.body.data[1].status_code).toBe(200);
  });
});
