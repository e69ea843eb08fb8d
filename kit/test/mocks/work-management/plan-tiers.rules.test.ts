import { handBuiltOrg, manualClock, member, startMock, type RunningMock } from './mock-harness';

const clock = manualClock();
let m: RunningMock;
let ids: { org: string; project: string; team: string; alice: string };

beforeAll(async () => {
  const { organization, built } = handBuiltOrg((s, org) => {
    const alice = member(s, org, 'Alice Plan');
    const team = s.people.addTeam({ workspace: org, name: 'Plans' });
    const project = s.projects.add({ workspace: org, team: team.gid, name: 'Exported', owner: alice });
    s.tasks.add({ workspace: org, name: 'A task', memberships: [{ project: project.gid }] });
    return { org, project: project.gid, team: team.gid, alice };
  }, clock.now);
  m = await startMock({ organization, now: clock.now, hostility: { jobDurationMs: 1_000 } });
  ids = built;
});
afterAll(() => m.close());

async function setPlan(tier: string, addOns: string[] = []): Promise<void> {
  const res = await m.call(`/_admin/workspaces/${ids.org}/plan`, { method: 'PUT', body: { tier, add_ons: addOns } });
  expect(res.body.data).toEqual({ gid: ids.org, tier, add_ons: addOns });
  // Let any export in progress finish: one resource export at a time per workspace.
  clock.advance(1_000);
}

const graphExport = (token?: string) => m.api('/exports/graph', { body: { data: { parent: ids.project } }, ...(token ? { token } : {}) });
const resourceExport = (token?: string) => m.api('/exports/resource', { body: { data: { workspace: ids.org } }, ...(token ? { token } : {}) });
const organizationExport = (token?: string) => m.api('/organization_exports', { body: { data: { organization: ids.org } }, ...(token ? { token } : {}) });

describe('Graph exports only for accounts of an enterprise-tier organization', () => {
  it.each(['enterprise', 'enterprise_plus'])('%s: a job is created, for a member as for the service account', async (tier) => {
    await setPlan(tier);
    expect((await graphExport()).status).toBe(201);
    const asMember = await graphExport(m.mock.tokenFor(ids.alice));
    expect(asMember.status).toBe(201);
    expect(asMember.body.data.resource_subtype).toBe('graph_export_request');
  });

  it.each(['free', 'premium', 'business'])('%s: 402 Payment Required, and no job', async (tier) => {
    await setPlan(tier, ['compliance']);
    const jobs = m.mock.context.jobs.jobs.size;
    const res = await graphExport();
    expect(res.status).toBe(402);
    expect(res.body.errors[0].message).toBe('Graph exports are only available to organizations on an Enterprise tier.');
    expect(m.mock.context.jobs.jobs.size).toBe(jobs);
  });
});

describe('Resource exports only for service accounts of the top enterprise tier or with the compliance add-on', () => {
  it('enterprise_plus: the service account exports', async () => {
    await setPlan('enterprise_plus');
    expect((await resourceExport()).status).toBe(201);
  });

  it.each(['free', 'business', 'enterprise'])('%s with the compliance add-on: the service account exports', async (tier) => {
    await setPlan(tier, ['compliance']);
    expect((await resourceExport()).status).toBe(201);
  });

  it.each(['free', 'business', 'enterprise'])('%s without the add-on: 402 Payment Required', async (tier) => {
    await setPlan(tier);
    const res = await resourceExport();
    expect(res.status).toBe(402);
    expect(res.body.errors[0].message).toBe('Resource exports are only available on the Enterprise+ tier or with the compliance add-on.');
  });

  it('a member who is not a service account gets 403 even on the top tier', async () => {
    await setPlan('enterprise_plus', ['compliance']);
    const res = await resourceExport(m.mock.tokenFor(ids.alice));
    expect(res.status).toBe(403);
    expect(res.body.errors[0].message).toBe('Resource exports are available to service accounts only.');
  });
});

describe('Organization exports only for service accounts of an enterprise organization', () => {
  it.each(['enterprise', 'enterprise_plus'])('%s: the service account exports', async (tier) => {
    await setPlan(tier);
    expect((await organizationExport()).status).toBe(201);
  });

  it('below enterprise: 402; a member: 403', async () => {
    await setPlan('business', ['compliance']);
    expect((await organizationExport()).status).toBe(402);
    await setPlan('enterprise');
    expect((await organizationExport(m.mock.tokenFor(ids.alice))).status).toBe(403);
  });
});

describe('A plan is validated', () => {
  it('an unknown tier or add-on is 400', async () => {
    expect((await m.call(`/_admin/workspaces/${ids.org}/plan`, { method: 'PUT', body: { tier: 'platinum' } })).status).toBe(400);
    expect((await m.call(`/_admin/workspaces/${ids.org}/plan`, { method: 'PUT', body: { add_ons: ['everything'] } })).status).toBe(400);
  });
});
