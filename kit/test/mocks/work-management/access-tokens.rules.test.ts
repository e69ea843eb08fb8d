import { requiredScope } from '../../../src/mocks/work-management/rules/access-tokens';
import { handBuiltOrg, manualClock, member, startMock, type RunningMock } from './mock-harness';

const clock = manualClock();
let m: RunningMock;
let ids: { org: string; project: string; task: string; alice: string };

beforeAll(async () => {
  const { organization, built } = handBuiltOrg((s, org) => {
    const alice = member(s, org, 'Alice Token');
    const team = s.people.addTeam({ workspace: org, name: 'Tokens' });
    const project = s.projects.add({ workspace: org, team: team.gid, name: 'Scoped', owner: alice, privacySetting: 'private' });
    const task = s.tasks.add({ workspace: org, name: 'Scoped task', memberships: [{ project: project.gid }], assignee: alice });
    return { org, project: project.gid, task: task.gid, alice };
  }, clock.now);
  m = await startMock({ organization, now: clock.now });
  ids = built;
});
afterAll(() => m.close());

async function oauthToken(scopes?: string[], expiresIn?: number): Promise<string> {
  const res = await m.call('/_admin/tokens', {
    body: { user: ids.alice, kind: 'oauth', ...(scopes ? { scopes } : {}), ...(expiresIn ? { expires_in: expiresIn } : {}) },
  });
  expect(res.status).toBe(200);
  expect(res.body.data).toMatchObject({ user: ids.alice, kind: 'oauth', token_type: 'bearer', scopes: scopes ?? ['default'], expires_in: expiresIn ?? 3600 });
  return res.body.data.token;
}

async function pat(): Promise<string> {
  const res = await m.call('/_admin/tokens', { body: { user: ids.alice } });
  expect(res.body.data).toMatchObject({ user: ids.alice, kind: 'personal_access_token' });
  return res.body.data.token;
}

describe('Two schemes are accepted: a personal access token and an OAuth 2.0 token, each acting as its user', () => {
  it('both read what their user sees, and nothing more', async () => {
    for (const token of [await pat(), await oauthToken()]) {
      const me = await m.api('/users/me', { token });
      expect(me.status).toBe(200);
      expect(me.body.data.gid).toBe(ids.alice);
      expect((await m.api(`/projects/${ids.project}`, { token })).status).toBe(200);
    }
    const stranger = member(m.mock.model, ids.org, 'Stranger Token');
    const strangerOauth = (await m.call('/_admin/tokens', { body: { user: stranger, kind: 'oauth' } })).body.data.token;
    expect((await m.api(`/projects/${ids.project}`, { token: strangerOauth })).status).toBe(403);
  });
});

describe('An OAuth token needs the scope <resource>:read|write|delete of each operation; default means full access', () => {
  it('tasks:read reads tasks but neither writes them nor reads projects; 403 names the missing scope', async () => {
    const token = await oauthToken(['tasks:read']);
    expect((await m.api(`/projects/${ids.project}/tasks`, { token })).status).toBe(200);
    expect((await m.api(`/tasks/${ids.task}`, { token })).status).toBe(200);
    const write = await m.api('/tasks', { token, body: { data: { name: 'no', projects: [ids.project] } } });
    expect(write.status).toBe(403);
    expect(write.body.errors[0].message).toBe('This request needs the OAuth scope tasks:write, which the token was not granted.');
    const project = await m.api(`/projects/${ids.project}`, { token });
    expect(project.status).toBe(403);
    expect(project.body.errors[0].message).toContain('projects:read');
  });

  it('write and delete are separate scopes', async () => {
    const token = await oauthToken(['tasks:write']);
    const created = await m.api('/tasks', { token, body: { data: { name: 'scoped write', projects: [ids.project] } } });
    expect(created.status).toBe(201);
    expect((await m.api(`/tasks/${created.body.data.gid}`, { token, method: 'DELETE' })).status).toBe(403);
    const deleter = await oauthToken(['tasks:delete']);
    expect((await m.api(`/tasks/${created.body.data.gid}`, { token: deleter, method: 'DELETE' })).status).toBe(200);
  });

  it('the batch request needs no scope; each action needs its own', async () => {
    const token = await oauthToken(['tasks:read']);
    const res = await m.api('/batch', {
      token,
      body: {
        data: {
          actions: [
            { relative_path: `/tasks/${ids.task}`, method: 'get' },
            { relative_path: `/projects/${ids.project}`, method: 'get' },
          ],
        },
      },
    });
    expect(res.status).toBe(200);
    expect(res.body.data.map((r: { status_code: number }) => r.status_code)).toEqual([200, 403]);
  });

  it('default grants everything; a malformed scope is refused when the token is issued', async () => {
    const token = await oauthToken(['default']);
    expect((await m.api(`/projects/${ids.project}`, { token })).status).toBe(200);
    expect((await m.api('/tasks', { token, body: { data: { name: 'full', projects: [ids.project] } } })).status).toBe(201);
    expect((await m.call('/_admin/tokens', { body: { user: ids.alice, kind: 'oauth', scopes: ['tasks'] } })).status).toBe(400);
  });

  it('the scope is the collection the path names, by method', () => {
    const scope = (method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, own?: string | null) =>
      requiredScope({ method, path, ...(own !== undefined ? { scope: own } : {}) });
    expect(scope('GET', '/projects/:project_gid/tasks')).toBe('tasks:read');
    expect(scope('GET', '/workspaces/:workspace_gid/tasks/search')).toBe('tasks:read');
    expect(scope('POST', '/tasks/:task_gid/duplicate')).toBe('tasks:write');
    expect(scope('POST', '/tasks/:task_gid/addFollowers')).toBe('tasks:write');
    expect(scope('PUT', '/projects/:project_gid')).toBe('projects:write');
    expect(scope('DELETE', '/stories/:story_gid')).toBe('stories:delete');
    expect(scope('POST', '/exports/graph')).toBe('exports:write');
    expect(scope('POST', '/batch')).toBeUndefined();
    expect(scope('POST', '/project_templates/:project_template_gid/instantiateProject', 'projects:write')).toBe('projects:write');
  });
});

describe('An OAuth token expires; a personal access token does not', () => {
  it('after its lifetime every request, a batch included, is 401 with the expired-token message', async () => {
    const oauth = await oauthToken(undefined, 600);
    const personal = await pat();
    clock.advance(599_000);
    expect((await m.api('/users/me', { token: oauth })).status).toBe(200);
    clock.advance(1_000);
    const expired = await m.api('/users/me', { token: oauth });
    expect(expired.status).toBe(401);
    expect(expired.body.errors[0].message).toBe(
      'The bearer token has expired. If you have a refresh token, please use it to request a new bearer token, otherwise allow the user to re-authenticate.',
    );
    expect((await m.api('/no/such/route', { token: oauth })).status).toBe(401);
    const batch = await m.api('/batch', { token: oauth, body: { data: { actions: [{ relative_path: '/users/me', method: 'get' }] } } });
    expect(batch.status).toBe(401);
    clock.advance(30 * 86_400_000);
    expect((await m.api('/users/me', { token: personal })).status).toBe(200);
    expect((await m.api('/users/me')).status).toBe(200);
  });
});
