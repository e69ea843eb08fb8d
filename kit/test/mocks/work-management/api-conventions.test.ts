import { startMock, type RunningMock } from './mock-harness';

let m: RunningMock;
let org: string;
let project: string;
let task: string;

beforeAll(async () => {
  m = await startMock({ seed: 'conventions', size: 'tiny' });
  org = m.mock.organization.organization;
  project = m.mock.model.indexes.projectsByWorkspace.get(org)?.[0] as string;
  task = m.mock.model.indexes.tasksByProject.get(project)?.[0] as string;
});
afterAll(() => m.close());

describe('Objects are identified by a globally unique identifier gid (string)', () => {
  it('every gid on the wire is a string, nested ones included', async () => {
    const res = await m.api(`/tasks/${task}`);
    const gids: unknown[] = [];
    JSON.stringify(res.body, (key, value) => {
      if (key === 'gid') gids.push(value);
      return value;
    });
    expect(gids.length).toBeGreaterThan(5);
    expect(gids.every((g) => typeof g === 'string')).toBe(true);
  });

  it('a malformed gid is "Not a recognized ID" and an unknown one "Unknown object" (404)', async () => {
    const bad = await m.api('/tasks/not-a-gid');
    expect(bad.status).toBe(404);
    expect(bad.body.errors[0].message).toBe('task: Not a recognized ID: not-a-gid');
    const unknown = await m.api('/tasks/1999999999999999');
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors[0].message).toBe('task: Unknown object: 1999999999999999');
  });
});

describe('The special user identifier me means the authenticated user', () => {
  it('GET /users/me is the token user; me works wherever a user is accepted', async () => {
    const me = await m.api('/users/me');
    expect(me.status).toBe(200);
    expect(me.body.data.gid).toBe(m.mock.organization.serviceAccount);
    const asUser = m.mock.tokenFor(
      m.mock.model.indexes.list(m.mock.model.indexes.workspaceMembershipsByWorkspace.get(org), m.mock.model.indexes.workspaceMemberships)[0]?.user as string,
    );
    const userMe = await m.api(`/users/me/workspace_memberships`, { token: asUser });
    expect(userMe.status).toBe(200);
    expect(userMe.body.data.length).toBeGreaterThan(0);
    const byEmail = await m.api(`/users/${encodeURIComponent(me.body.data.email)}`);
    expect(byEmail.body.data.gid).toBe(me.body.data.gid);
  });
});

describe('Write requests carry their payload inside a data envelope; responses carry their payload inside a data envelope', () => {
  it('success bodies are {data}; creates answer 201 with a Location', async () => {
    const created = await m.api('/tasks', { body: { data: { name: 'Enveloped', projects: [project] } } });
    expect(created.status).toBe(201);
    expect(created.body.data.name).toBe('Enveloped');
    expect(created.headers.get('location')).toBe(`${m.base}/tasks/${created.body.data.gid}`);
    const list = await m.api(`/projects/${project}/sections`);
    expect(Object.keys(list.body)).toEqual(['data']);
    expect(Array.isArray(list.body.data)).toBe(true);
  });

  it('a field outside data is rejected with 400, listing data and options', async () => {
    const res = await m.api('/tasks', { body: { name: 'no envelope', projects: [project] } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toMatch(/Unrecognized request field .*data, options/);
  });

  it('malformed JSON fails the request with 400', async () => {
    const res = await m.api('/tasks', { raw: '{"data": {', method: 'POST' });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toBe('Could not parse request data, invalid JSON');
  });
});

describe('Errors: {errors: [{message, help}]} with the reference status codes', () => {
  it('401 Not Authorized without a valid bearer token', async () => {
    for (const token of ['', 'wrong-token']) {
      const res = await m.api('/users/me', { token });
      expect(res.status).toBe(401);
      expect(res.body).toEqual({
        errors: [{ message: 'Not Authorized', help: expect.stringContaining('https://developers.work-management.example/docs/errors') }],
      });
    }
  });

  it('404 No matching route for unknown paths and methods', async () => {
    expect((await m.api('/no/such/thing')).body.errors[0].message).toBe('No matching route for request');
    const wrongMethod = await m.api(`/tasks/${task}/stories`, { method: 'PUT', body: { data: {} } });
    expect(wrongMethod.status).toBe(404);
  });

  it('400 "<field>: Missing input" for a missing required parameter', async () => {
    const res = await m.api('/attachments');
    expect(res.status).toBe(400);
    expect(res.body.errors[0]).toEqual({ message: 'parent: Missing input', help: expect.any(String) });
    const tasks = await m.api('/tasks');
    expect(tasks.body.errors[0].message).toBe('Must specify exactly one of project, tag, section, user task list, or assignee + workspace');
  });

  it('responses are JSON in UTF-8', async () => {
    const res = await m.api('/users/me');
    expect(res.headers.get('content-type')).toBe('application/json; charset=UTF-8');
  });
});

describe('Collection queries return a compact representation; opt_fields widens or narrows the fields returned', () => {
  it('collections are compact; single GETs are full without opt-in fields', async () => {
    const list = await m.api(`/projects/${project}/tasks`);
    expect(Object.keys(list.body.data[0]).sort()).toEqual(['gid', 'name', 'resource_subtype', 'resource_type']);
    const one = await m.api(`/tasks/${task}`);
    expect(one.body.data).toEqual(
      expect.objectContaining({
        notes: expect.any(String),
        memberships: expect.any(Array),
        custom_fields: expect.any(Array),
        followers: expect.any(Array),
        modified_at: expect.any(String),
      }),
    );
    expect(one.body.data).not.toHaveProperty('html_notes');
    expect(one.body.data).not.toHaveProperty('created_by');
  });

  it('opt_fields selects exactly the named paths plus gid, nested paths included', async () => {
    const res = await m.api(`/projects/${project}/tasks?opt_fields=name,assignee.email,memberships.section.name,html_notes`);
    const first = res.body.data[0];
    expect(Object.keys(first).sort()).toEqual(['assignee', 'gid', 'html_notes', 'memberships', 'name']);
    expect(first.html_notes).toMatch(/^<body>/);
    if (first.assignee) expect(Object.keys(first.assignee).sort()).toEqual(['email', 'gid']);
    expect(Object.keys(first.memberships[0])).toEqual(['section']);
    expect(Object.keys(first.memberships[0].section).sort()).toEqual(['gid', 'name']);
  });

  it('opt_fields narrows a single GET and supports this. and (a|b) groups', async () => {
    const res = await m.api(`/tasks/${task}?opt_fields=this.(followers|assignee).name`);
    expect(Object.keys(res.body.data).sort()).toEqual(expect.arrayContaining(['followers', 'gid']));
    for (const f of res.body.data.followers) expect(Object.keys(f).sort()).toEqual(['gid', 'name']);
  });

  it('a reference named without sub-fields gives its identity; unknown fields are ignored', async () => {
    const res = await m.api(`/tasks/${task}?opt_fields=workspace,no_such_field`);
    expect(res.body.data).toEqual({ gid: task, workspace: { gid: org, resource_type: 'workspace' } });
  });

  it('custom fields are compact with their type', async () => {
    const res = await m.api(`/workspaces/${org}/custom_fields`);
    for (const f of res.body.data)
      expect(f).toEqual(
        expect.objectContaining({ gid: expect.any(String), name: expect.any(String), type: expect.any(String), resource_type: 'custom_field' }),
      );
  });
});

describe('opt_pretty asks for indented output', () => {
  it('is indented with opt_pretty and compact without', async () => {
    const pretty = await m.api('/users/me?opt_pretty=true');
    const plain = await m.api('/users/me');
    expect(pretty.text).toContain('\n  "data"');
    expect(plain.text).not.toContain('\n');
    expect(pretty.body).toEqual(plain.body);
  });
});
