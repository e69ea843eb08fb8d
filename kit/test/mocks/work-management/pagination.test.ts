import { handBuiltOrg, manualClock, member, startMock, walk, type RunningMock } from './mock-harness';

const clock = manualClock();
let m: RunningMock;
let project: string;
let workspace: string;
const TASKS = 1205;

beforeAll(async () => {
  const { organization, built } = handBuiltOrg((s, org) => {
    const owner = member(s, org, 'Page Owner');
    const team = s.people.addTeam({ workspace: org, name: 'Paging' });
    const p = s.projects.add({ workspace: org, team: team.gid, name: 'Big project', owner });
    for (let i = 0; i < TASKS; i++)
      s.tasks.add({ workspace: org, name: `Task ${i}`, memberships: [{ project: p.gid }], createdAt: Date.UTC(2025, 0, 1) + i * 1000 });
    for (let i = 0; i < 30; i++) member(s, org, `User ${String(i).padStart(2, '0')}`);
    return { project: p.gid, org };
  }, clock.now);
  m = await startMock({ organization, now: clock.now });
  project = built.project;
  workspace = built.org;
});
afterAll(() => m.close());

describe('limit is a page size from 1 to 100', () => {
  it.each(['0', '101', '-1', 'abc', '1.5'])('limit=%s gives 400', async (limit) => {
    const res = await m.api(`/projects/${project}/tasks?limit=${limit}`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toMatch(/^limit:/);
  });

  it('limit=1 and limit=100 are accepted', async () => {
    expect((await m.api(`/projects/${project}/tasks?limit=1`)).body.data).toHaveLength(1);
    expect((await m.api(`/projects/${project}/tasks?limit=100`)).body.data).toHaveLength(100);
  });
});

describe('next_page: {offset, path, uri} while there is more, null on the last page, absent without limit', () => {
  it('walks a listing exactly once, in order', async () => {
    const first = await m.api(`/projects/${project}/tasks?limit=100&opt_fields=name`);
    const next = first.body.next_page;
    expect(Object.keys(next).sort()).toEqual(['offset', 'path', 'uri']);
    expect(next.path).toBe(`/projects/${project}/tasks?opt_fields=name&limit=100&offset=${encodeURIComponent(next.offset)}`);
    expect(next.uri).toBe(`${m.base}${next.path}`);
    const all = await walk(m, `/projects/${project}/tasks`, 100);
    expect(all).toHaveLength(TASKS);
    expect(new Set(all.map((t) => t.gid)).size).toBe(TASKS);
    expect(all.map((t) => t.name)).toEqual(Array.from({ length: TASKS }, (_, i) => `Task ${i}`));
  });

  it('the last page has next_page null; unpaginated responses have no next_page', async () => {
    const sections = await m.api(`/projects/${project}/sections?limit=100`);
    expect(sections.body.next_page).toBeNull();
    const unpaged = await m.api(`/projects/${project}/sections`);
    expect(unpaged.body).not.toHaveProperty('next_page');
  });

  it('an unpaginated listing of more than 1,000 objects gives 400 "The result is too large"', async () => {
    const res = await m.api(`/projects/${project}/tasks`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toMatch(/^The result is too large. You should use pagination/);
  });

  it('an item present for the whole walk is returned exactly once while tasks are added and deleted', async () => {
    const seen: string[] = [];
    let next: string | null = `/projects/${project}/tasks?limit=50`;
    let page = 0;
    const s = m.mock.model;
    const original = new Set(s.indexes.tasksByProject.get(project));
    while (next) {
      const res: { body: { data: Array<{ gid: string }>; next_page: { path: string } | null } } = await m.api(next);
      seen.push(...res.body.data.map((t) => t.gid));
      next = res.body.next_page?.path ?? null;
      page++;
      if (page === 3) {
        // Delete two already-served tasks and one not yet served; add one at the end.
        const list = s.indexes.tasksByProject.get(project) as string[];
        for (const gid of [list[10], list[20], list[400]] as string[]) {
          s.tasks.delete(s.indexes.tasks.get(gid) as never);
          original.delete(gid);
        }
        s.tasks.add({ workspace, name: 'late', memberships: [{ project }] });
      }
    }
    for (const gid of original) expect(seen.filter((g) => g === gid)).toHaveLength(1);
  });
});

describe('offset is an opaque token only the service issues; invalid or expired gives 400', () => {
  const INVALID = 'offset: Your pagination token is invalid.';

  it('tokens are opaque (JWT-shaped) strings, not page numbers', async () => {
    const res = await m.api(`/projects/${project}/tasks?limit=10`);
    expect(res.body.next_page.offset).toMatch(/^[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(res.body.next_page.offset).not.toMatch(/^\d+$/);
  });

  it.each([
    ['an empty', ''],
    ['a garbage', 'abc'],
    ['a numeric', '100'],
  ])('%s offset gives 400', async (_what, offset) => {
    const res = await m.api(`/projects/${project}/tasks?limit=10&offset=${offset}`);
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toBe(INVALID);
  });

  it('a tampered token gives 400', async () => {
    const token: string = (await m.api(`/projects/${project}/tasks?limit=10`)).body.next_page.offset;
    const [h, p, sig] = token.split('.') as [string, string, string];
    const payload = JSON.parse(Buffer.from(p, 'base64url').toString());
    payload.border_rank = '500:1';
    const forged = `${h}.${Buffer.from(JSON.stringify(payload)).toString('base64url')}.${sig}`;
    expect((await m.api(`/projects/${project}/tasks?limit=10&offset=${forged}`)).status).toBe(400);
  });

  it('a token from another query gives 400', async () => {
    const token = (await m.api(`/projects/${project}/tasks?limit=10`)).body.next_page.offset;
    const other = await m.api(`/users?workspace=${workspace}&limit=10&offset=${token}`);
    expect(other.status).toBe(400);
    expect(other.body.errors[0].message).toBe(INVALID);
    const filtered = await m.api(`/projects/${project}/tasks?limit=10&completed_since=now&offset=${token}`);
    expect(filtered.status).toBe(400);
  });

  it('a token expires (15 minutes by default) and then gives 400', async () => {
    const token = (await m.api(`/projects/${project}/tasks?limit=10`)).body.next_page.offset;
    clock.advance(14 * 60_000);
    expect((await m.api(`/projects/${project}/tasks?limit=10&offset=${token}`)).status).toBe(200);
    clock.advance(2 * 60_000);
    const expired = await m.api(`/projects/${project}/tasks?limit=10&offset=${token}`);
    expect(expired.status).toBe(400);
    expect(expired.body.errors[0].message).toBe(INVALID);
  });
});

describe('pagination everywhere the adapter reads', () => {
  it('users, memberships and teams page with tokens', async () => {
    const users = await walk(m, `/users?workspace=${workspace}`, 7);
    expect(users.length).toBe(31);
    const wsm = await walk(m, `/workspaces/${workspace}/workspace_memberships`, 7);
    expect(wsm.length).toBe(31);
  });

  it('/workspaces/{gid}/users takes no limit: alphabetical, no next_page', async () => {
    const res = await m.api(`/workspaces/${workspace}/users?limit=5`);
    expect(res.body).not.toHaveProperty('next_page');
    const names = res.body.data.map((u: { name: string }) => u.name);
    expect(names).toHaveLength(31);
    expect(names).toEqual([...names].sort((a: string, b: string) => a.localeCompare(b)));
  });
});
