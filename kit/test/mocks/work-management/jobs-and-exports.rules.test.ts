import zlib from 'node:zlib';
import { manualClock, startMock, type RunningMock } from './mock-harness';

const clock = manualClock();
let m: RunningMock;
let org: string;
let project: string;
let task: string;
let team: string;

beforeAll(async () => {
  m = await startMock({ seed: 'jobs', size: 'tiny', now: clock.now, hostility: { jobDurationMs: 10_000 } });
  const s = m.mock.model;
  org = m.mock.organization.organization;
  project = s.indexes.projectsByWorkspace.get(org)?.[0] as string;
  task = s.indexes.tasksByProject.get(project)?.[0] as string;
  team = s.indexes.teamsByWorkspace.get(org)?.[0] as string;
});
afterAll(() => m.close());

const job = (gid: string, token?: string) => m.api(`/jobs/${gid}`, token ? { token } : {});

describe('Work done asynchronously (duplicating a task or project, exports) returns a job that reaches succeeded', () => {
  it('task duplication: not_started → in_progress → succeeded; the copy is complete only then', async () => {
    const created = await m.api(`/tasks/${task}/duplicate`, {
      body: { data: { name: 'Copy of task', include: ['notes', 'assignee', 'followers', 'projects'] } },
    });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({
      resource_type: 'job',
      resource_subtype: 'duplicate_task',
      status: 'not_started',
      new_task: { gid: expect.any(String), name: 'Copy of task' },
    });
    const copy = created.body.data.new_task.gid;
    // Inconsistent until succeeded: the copy exists but is not yet in the original's projects.
    expect((await m.api(`/tasks/${copy}`)).body.data.projects).toEqual([]);
    clock.advance(5_000);
    expect((await job(created.body.data.gid)).body.data.status).toBe('in_progress');
    clock.advance(5_000);
    expect((await job(created.body.data.gid)).body.data.status).toBe('succeeded');
    const done = (await m.api(`/tasks/${copy}`)).body.data;
    const original = (await m.api(`/tasks/${task}`)).body.data;
    expect(done.projects.map((p: { gid: string }) => p.gid)).toEqual(original.projects.map((p: { gid: string }) => p.gid));
    expect(done.notes).toBe(original.notes);
    expect(done.assignee?.gid ?? null).toBe(original.assignee?.gid ?? null);
  });

  it('project duplication copies sections and tasks once the job succeeds', async () => {
    const created = await m.api(`/projects/${project}/duplicate`, { body: { data: { name: 'Project copy', include: ['members', 'task_notes'] } } });
    expect(created.body.data).toMatchObject({ resource_subtype: 'duplicate_project', new_project: { name: 'Project copy' } });
    const copy = created.body.data.new_project.gid;
    clock.advance(10_000);
    expect((await job(created.body.data.gid)).body.data.status).toBe('succeeded');
    const s = m.mock.model;
    expect(s.indexes.sectionsByProject.get(copy)?.length).toBe(s.indexes.sectionsByProject.get(project)?.length);
    const topLevel = (s.indexes.tasksByProject.get(project) ?? []).filter((g) => !s.indexes.tasks.get(g)?.parent).length;
    expect(s.indexes.tasksByProject.get(copy)?.length).toBe(topLevel);
    expect((await m.api(`/projects/${copy}`)).body.data.team.gid).toBe(s.indexes.projects.get(project)?.team);
  });

  it('duplicating a project needs a name', async () => {
    expect((await m.api(`/projects/${project}/duplicate`, { body: { data: {} } })).body.errors[0].message).toBe('name: Missing input');
  });
});

describe('Only the creator of a duplication process can read the duplication status', () => {
  it('another user gets 403 on the job', async () => {
    const created = await m.api(`/tasks/${task}/duplicate`, { body: { data: { name: 'Private copy' } } });
    const someone = m.mock.model.indexes.list(m.mock.model.indexes.workspaceMembershipsByWorkspace.get(org), m.mock.model.indexes.workspaceMemberships)[0]
      ?.user as string;
    expect((await job(created.body.data.gid, m.mock.tokenFor(someone))).status).toBe(403);
    expect((await job(created.body.data.gid)).status).toBe(200);
  });
});

describe('Graph export: completion is read from a job whose status becomes succeeded; the job carries download_url', () => {
  it.each(['project', 'team'])('exports a %s as gzip JSON', async (kind) => {
    const parent = kind === 'project' ? project : team;
    const created = await m.api('/exports/graph', { body: { data: { parent } } });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ resource_type: 'job', resource_subtype: 'graph_export_request', new_graph_export: { download_url: null } });
    clock.advance(10_000);
    const done = (await job(created.body.data.gid)).body.data;
    expect(done.status).toBe('succeeded');
    const url: string = done.new_graph_export.download_url;
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/_downloads\/exports\//);
    const res = await fetch(url);
    expect(res.status).toBe(200);
    const graph = JSON.parse(zlib.gunzipSync(Buffer.from(await res.arrayBuffer())).toString());
    expect(graph.gid).toBe(parent);
    if (kind === 'project') expect(graph.tasks.length).toBe(m.mock.model.indexes.tasksByProject.get(project)?.length);
  });
});

describe('Resource export: a job with status succeeded and a download_url (gzip JSON Lines)', () => {
  it('exports the workspace tasks; a second export in progress gets 403', async () => {
    const created = await m.api('/exports/resource', {
      body: { data: { workspace: org, export_request_parameters: [{ resource_type: 'task' }, { resource_type: 'team' }] } },
    });
    expect(created.status).toBe(201);
    expect(created.body.data.resource_subtype).toBe('resource_export_request');
    expect((await m.api('/exports/resource', { body: { data: { workspace: org } } })).status).toBe(403);
    clock.advance(10_000);
    const done = (await job(created.body.data.gid)).body.data;
    expect(done.status).toBe('succeeded');
    const res = await fetch(done.new_resource_export.download_url);
    const lines = zlib
      .gunzipSync(Buffer.from(await res.arrayBuffer()))
      .toString()
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const s = m.mock.model;
    expect(lines.filter((l) => l.resource_type === 'task')).toHaveLength(s.indexes.tasksByWorkspace.get(org)?.length ?? -1);
    expect(lines.filter((l) => l.resource_type === 'team')).toHaveLength(s.indexes.teamsByWorkspace.get(org)?.length ?? -1);
    // Exported attachments carry no download_url.
    for (const l of lines) for (const a of l.attachments ?? []) expect(a).not.toHaveProperty('download_url');
  });
});

describe('Organization export: its state becomes finished; download_url holds the file location', () => {
  it('pending → started → finished with a download_url', async () => {
    const created = await m.api('/organization_exports', { body: { data: { organization: org } } });
    expect(created.status).toBe(201);
    expect(created.body.data).toMatchObject({ resource_type: 'organization_export', state: 'pending', download_url: null, organization: { gid: org } });
    const gid = created.body.data.gid;
    clock.advance(5_000);
    expect((await m.api(`/organization_exports/${gid}`)).body.data.state).toBe('started');
    clock.advance(5_000);
    const done = (await m.api(`/organization_exports/${gid}`)).body.data;
    expect(done.state).toBe('finished');
    const res = await fetch(done.download_url);
    const content = JSON.parse(zlib.gunzipSync(Buffer.from(await res.arrayBuffer())).toString());
    expect(content.tasks).toHaveLength(m.mock.model.indexes.tasksByWorkspace.get(org)?.length ?? -1);
  });

  it('a plain workspace cannot be exported as an organization', async () => {
    const plain = m.mock.organization.personalWorkspace as string;
    expect((await m.api('/organization_exports', { body: { data: { organization: plain } } })).status).toBe(400);
  });
});
