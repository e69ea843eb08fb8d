import { handBuiltOrg, member, startMock, type RunningMock } from './mock-harness';

let m: RunningMock;
let ids: {
  org: string;
  outer: string;
  inner: string;
  direct: string;
  nested: string;
  loose: string;
  task: string;
  budget: string;
  stage: string;
  customer: string;
};

beforeAll(async () => {
  const { organization, built } = handBuiltOrg((s, org) => {
    const alice = member(s, org, 'Alice Portfolio');
    const team = s.people.addTeam({ workspace: org, name: 'Portfolios' });
    const direct = s.projects.add({ workspace: org, team: team.gid, name: 'Directly in the outer portfolio', owner: alice });
    const nested = s.projects.add({ workspace: org, team: team.gid, name: 'In the inner portfolio', owner: alice });
    const loose = s.projects.add({ workspace: org, team: team.gid, name: 'In no portfolio', owner: alice });
    const outer = s.catalog.addPortfolio({ workspace: org, name: 'Outer', owner: alice });
    const inner = s.catalog.addPortfolio({ workspace: org, name: 'Inner', owner: alice });
    outer.items.push(direct.gid, inner.gid);
    inner.items.push(nested.gid);
    const budget = s.catalog.addCustomField({ workspace: org, name: 'Budget', type: 'number', precision: 2 }).gid;
    const stage = s.catalog.addCustomField({ workspace: org, name: 'Stage', type: 'text' }).gid;
    const customer = s.catalog.addCustomField({ workspace: org, name: 'Customer', type: 'text' }).gid;
    s.catalog.addCustomFieldSetting({ field: customer, parent: direct.gid });
    const task = s.tasks.add({ workspace: org, name: 'A task of the project', memberships: [{ project: direct.gid }] });
    return { org, outer: outer.gid, inner: inner.gid, direct: direct.gid, nested: nested.gid, loose: loose.gid, task: task.gid, budget, stage, customer };
  });
  m = await startMock({ organization });
  ids = built;
  // The settings go on through the API, as a client would add them.
  expect((await m.api(`/portfolios/${ids.outer}/addCustomFieldSetting`, { body: { data: { custom_field: ids.budget } } })).status).toBe(200);
  expect((await m.api(`/portfolios/${ids.inner}/addCustomFieldSetting`, { body: { data: { custom_field: ids.stage } } })).status).toBe(200);
});
afterAll(() => m.close());

const projectFields = async (project: string) =>
  (await m.api(`/projects/${project}`)).body.data.custom_fields as Array<{
    gid: string;
    enabled: boolean;
    number_value?: number | null;
    text_value?: string | null;
    display_value: string;
  }>;
const putProject = (project: string, data: Record<string, unknown>) => m.api(`/projects/${project}`, { method: 'PUT', body: { data } });

describe("A portfolio's custom field setting gives each project in it the field", () => {
  it('the project shows the field in custom_fields, blank until set, and its value can be set and cleared', async () => {
    expect(await projectFields(ids.direct)).toEqual([
      expect.objectContaining({ gid: ids.budget, name: 'Budget', type: 'number', enabled: true, number_value: null, display_value: '' }),
    ]);
    const set = await putProject(ids.direct, { custom_fields: { [ids.budget]: 1234.567 } });
    expect(set.status).toBe(200);
    expect(set.body.data.custom_fields).toEqual([expect.objectContaining({ gid: ids.budget, number_value: 1234.57, display_value: '1234.57' })]);
    expect((await putProject(ids.direct, { custom_fields: { [ids.budget]: 'lots' } })).status).toBe(400);
    expect((await putProject(ids.direct, { custom_fields: { [ids.budget]: null } })).status).toBe(200);
    expect((await projectFields(ids.direct))[0]).toMatchObject({ number_value: null, display_value: '' });
  });

  it("the project's own custom_field_settings stay its own", async () => {
    const settings = (await m.api(`/projects/${ids.direct}/custom_field_settings`)).body.data;
    expect(settings.map((s: { custom_field: { gid: string } }) => s.custom_field.gid)).toEqual([ids.customer]);
  });
});

describe("A portfolio's custom field setting does not reach the tasks in its projects", () => {
  it("a task sees only its project's own fields, and cannot be given the portfolio's", async () => {
    const task = (await m.api(`/tasks/${ids.task}`)).body.data;
    expect(task.custom_fields.map((f: { gid: string }) => f.gid)).toEqual([ids.customer]);
    const put = await m.api(`/tasks/${ids.task}`, { method: 'PUT', body: { data: { custom_fields: { [ids.budget]: 5 } } } });
    expect(put.status).toBe(400);
    expect(put.body.errors[0].message).toBe(`custom_fields: Custom field with ID ${ids.budget} is not on given object`);
    const created = await m.api('/tasks', { body: { data: { name: 'new', projects: [ids.direct], custom_fields: { [ids.budget]: 5 } } } });
    expect(created.status).toBe(400);
  });
});

describe('A custom field setting applies to direct children only', () => {
  it("a project in an inner portfolio gets the inner portfolio's field, not the outer one's", async () => {
    expect((await projectFields(ids.nested)).map((f) => f.gid)).toEqual([ids.stage]);
  });

  it('a project in no portfolio gets no portfolio field and cannot be given one', async () => {
    expect(await projectFields(ids.loose)).toEqual([]);
    const res = await putProject(ids.loose, { name: 'Renamed?', custom_fields: { [ids.budget]: 1 } });
    expect(res.status).toBe(400);
    expect(res.body.errors[0].message).toBe(`custom_fields: Custom field with ID ${ids.budget} is not on given object`);
    // All or nothing: the name did not change either.
    expect((await m.api(`/projects/${ids.loose}`)).body.data.name).toBe('In no portfolio');
  });
});

describe('A project value whose portfolio field no longer applies is kept, disabled, and can only be cleared', () => {
  it('leaving the portfolio disables the value; coming back enables it', async () => {
    expect((await putProject(ids.direct, { custom_fields: { [ids.budget]: 10 } })).status).toBe(200);
    expect((await m.api(`/portfolios/${ids.outer}/removeItem`, { body: { data: { item: ids.direct } } })).status).toBe(200);
    expect(await projectFields(ids.direct)).toEqual([expect.objectContaining({ gid: ids.budget, enabled: false, number_value: 10 })]);
    const change = await putProject(ids.direct, { custom_fields: { [ids.budget]: 11 } });
    expect(change.status).toBe(400);
    expect(change.body.errors[0].message).toBe(`custom_fields: The value of custom field ${ids.budget} is disabled on this project: it can only be cleared`);
    expect((await m.api(`/portfolios/${ids.outer}/addItem`, { body: { data: { item: ids.direct } } })).status).toBe(200);
    expect(await projectFields(ids.direct)).toEqual([expect.objectContaining({ gid: ids.budget, enabled: true, number_value: 10 })]);
    expect((await m.api(`/portfolios/${ids.outer}/removeCustomFieldSetting`, { body: { data: { custom_field: ids.budget } } })).status).toBe(200);
    expect((await projectFields(ids.direct))[0]).toMatchObject({ enabled: false });
    expect((await putProject(ids.direct, { custom_fields: { [ids.budget]: null } })).status).toBe(200);
    expect(await projectFields(ids.direct)).toEqual([]);
  });
});
