import fc from 'fast-check';
import { roundToPrecision } from '../../../src/mocks/work-management/rules/custom-fields';
import { handBuiltOrg, member, startMock, type RunningMock } from './mock-harness';

let m: RunningMock;
let ids: {
  org: string;
  a: string;
  b: string;
  c: string;
  fields: Record<string, string>;
  high: string;
  retired: string;
  frontend: string;
  legacy: string;
  alice: string;
  bob: string;
};

beforeAll(async () => {
  const { organization, built } = handBuiltOrg((s, org) => {
    const alice = member(s, org, 'Alice Field');
    const bob = member(s, org, 'Bob Field');
    const team = s.people.addTeam({ workspace: org, name: 'Fields' });
    const a = s.projects.add({ workspace: org, team: team.gid, name: 'A (all fields)', owner: alice });
    const b = s.projects.add({ workspace: org, team: team.gid, name: 'B (no fields)', owner: alice });
    const c = s.projects.add({ workspace: org, team: team.gid, name: 'C (priority only)', owner: alice });
    const fields: Record<string, string> = {};
    fields.text = s.catalog.addCustomField({ workspace: org, name: 'Customer', type: 'text' }).gid;
    fields.number = s.catalog.addCustomField({ workspace: org, name: 'Budget', type: 'number', precision: 2 }).gid;
    const priority = s.catalog.addCustomField({
      workspace: org,
      name: 'Priority',
      type: 'enum',
      enumOptions: [{ name: 'High' }, { name: 'Retired', enabled: false }],
    });
    fields.enum = priority.gid;
    const labels = s.catalog.addCustomField({
      workspace: org,
      name: 'Labels',
      type: 'multi_enum',
      enumOptions: [{ name: 'Frontend' }, { name: 'Legacy', enabled: false }],
    });
    fields.multi_enum = labels.gid;
    fields.date = s.catalog.addCustomField({ workspace: org, name: 'Review', type: 'date' }).gid;
    fields.people = s.catalog.addCustomField({ workspace: org, name: 'Reviewers', type: 'people' }).gid;
    fields.reference = s.catalog.addCustomField({ workspace: org, name: 'Related', type: 'reference', inputRestrictions: ['project'] }).gid;
    for (const f of Object.values(fields)) s.catalog.addCustomFieldSetting({ field: f, parent: a.gid });
    s.catalog.addCustomFieldSetting({ field: priority.gid, parent: c.gid });
    return {
      org,
      a: a.gid,
      b: b.gid,
      c: c.gid,
      fields,
      high: priority.enumOptions[0] as string,
      retired: priority.enumOptions[1] as string,
      frontend: labels.enumOptions[0] as string,
      legacy: labels.enumOptions[1] as string,
      alice,
      bob,
    };
  });
  m = await startMock({ organization });
  ids = built;
});
afterAll(() => m.close());

async function newTask(projects: string[], customFields?: Record<string, unknown>): Promise<string> {
  const res = await m.api('/tasks', { body: { data: { name: 'cf task', projects, ...(customFields ? { custom_fields: customFields } : {}) } } });
  expect(res.status).toBe(201);
  return res.body.data.gid;
}

async function entry(task: string, field: string): Promise<any> {
  const res = await m.api(`/tasks/${task}`);
  return res.body.data.custom_fields.find((f: { gid: string }) => f.gid === field);
}

async function put(task: string, customFields: Record<string, unknown>) {
  return m.api(`/tasks/${task}`, { method: 'PUT', body: { data: { custom_fields: customFields } } });
}

describe('Custom field type: text, number, enum, multi_enum, date, people, reference', () => {
  it('each type stores its value in the property named by its type', async () => {
    const task = await newTask([ids.a], {
      [ids.fields.text as string]: 'Acme GmbH',
      [ids.fields.number as string]: 12.5,
      [ids.fields.enum as string]: ids.high,
      [ids.fields.multi_enum as string]: [ids.frontend],
      [ids.fields.date as string]: { date: '2025-09-01' },
      [ids.fields.people as string]: [ids.alice, ids.bob],
      [ids.fields.reference as string]: [ids.b],
    });
    const res = await m.api(`/tasks/${task}`);
    const byGid = Object.fromEntries(res.body.data.custom_fields.map((f: { gid: string }) => [f.gid, f]));
    expect(byGid[ids.fields.text as string]).toMatchObject({ type: 'text', text_value: 'Acme GmbH', display_value: 'Acme GmbH', enabled: true });
    expect(byGid[ids.fields.number as string]).toMatchObject({ type: 'number', number_value: 12.5, precision: 2, display_value: '12.50' });
    expect(byGid[ids.fields.enum as string]).toMatchObject({ type: 'enum', enum_value: { gid: ids.high, name: 'High', enabled: true }, display_value: 'High' });
    expect(byGid[ids.fields.multi_enum as string]).toMatchObject({
      type: 'multi_enum',
      multi_enum_values: [{ gid: ids.frontend, name: 'Frontend' }],
      display_value: 'Frontend',
    });
    expect(byGid[ids.fields.date as string]).toMatchObject({ type: 'date', date_value: { date: '2025-09-01', date_time: null }, display_value: '2025-09-01' });
    expect(byGid[ids.fields.people as string]).toMatchObject({
      type: 'people',
      people_value: [{ gid: ids.alice }, { gid: ids.bob }],
      display_value: 'Alice Field, Bob Field',
    });
    expect(byGid[ids.fields.reference as string]).toMatchObject({
      type: 'reference',
      reference_value: [{ gid: ids.b }],
      display_value: 'B (no fields)',
      input_restrictions: ['project'],
    });
  });

  it('opt_fields=custom_fields returns each value with its compact field metadata and value, as without opt_fields', async () => {
    const task = await newTask([ids.a], { [ids.fields.text as string]: 'Acme GmbH', [ids.fields.enum as string]: ids.high });
    const full = (await m.api(`/tasks/${task}`)).body.data.custom_fields;
    const named = await m.api(`/tasks/${task}?opt_fields=custom_fields`);
    expect(Object.keys(named.body.data).sort()).toEqual(['custom_fields', 'gid']);
    expect(named.body.data.custom_fields).toEqual(full);
    const text = named.body.data.custom_fields.find((f: { gid: string }) => f.gid === ids.fields.text);
    expect(text).toMatchObject({ name: 'Customer', type: 'text', text_value: 'Acme GmbH', display_value: 'Acme GmbH', enabled: true });
    const picked = await m.api(`/tasks/${task}?opt_fields=custom_fields.display_value`);
    expect(picked.body.data.custom_fields.find((f: { gid: string }) => f.gid === ids.fields.enum)).toEqual({ gid: ids.fields.enum, display_value: 'High' });
  });

  it('the compact custom field record includes type; enum fields carry enum_options', async () => {
    const res = await m.api(`/custom_fields/${ids.fields.enum}`);
    expect(res.body.data).toMatchObject({
      gid: ids.fields.enum,
      name: 'Priority',
      type: 'enum',
      enum_options: [
        { gid: ids.high, enabled: true },
        { gid: ids.retired, enabled: false },
      ],
    });
    expect(res.body.data.enum_options[0].gid).not.toBe(ids.fields.enum);
  });

  it('text values are at most 1024 characters', async () => {
    const task = await newTask([ids.a]);
    expect((await put(task, { [ids.fields.text as string]: 'x'.repeat(1024) })).status).toBe(200);
    expect((await put(task, { [ids.fields.text as string]: 'x'.repeat(1025) })).status).toBe(400);
  });

  it('reference values must be of an allowed type, and input_restrictions must contain at least one entry', async () => {
    const task = await newTask([ids.a]);
    expect((await put(task, { [ids.fields.reference as string]: [task] })).status).toBe(400);
    const empty = await m.api('/custom_fields', {
      body: { data: { workspace: ids.org, name: 'Bad ref', resource_subtype: 'reference', input_restrictions: [] } },
    });
    expect(empty.status).toBe(400);
    expect(empty.body.errors[0].message).toMatch(/^input_restrictions:/);
    const ok = await m.api('/custom_fields', {
      body: { data: { workspace: ids.org, name: 'Good ref', resource_subtype: 'reference', input_restrictions: ['task', 'goal'] } },
    });
    expect(ok.status).toBe(201);
    expect(ok.body.data.input_restrictions).toEqual(['task', 'goal']);
  });
});

describe('Number fields: precision is the number of decimal places to round to (precision 2 rounds 1.2345 to 1.23)', () => {
  it('rounds 1.2345 to 1.23 at precision 2', async () => {
    const task = await newTask([ids.a], { [ids.fields.number as string]: 1.2345 });
    expect(await entry(task, ids.fields.number as string)).toMatchObject({ number_value: 1.23, display_value: '1.23' });
  });

  it('rounds half away from zero without binary-float surprises, at every precision', () => {
    expect(roundToPrecision(1.005, 2)).toBe(1.01);
    expect(roundToPrecision(-1.005, 2)).toBe(-1.01);
    expect(roundToPrecision(2.5, 0)).toBe(3);
    fc.assert(
      fc.property(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.integer({ min: 0, max: 6 }), (v, p) => {
        const r = roundToPrecision(v, p);
        expect(Math.abs(r - v)).toBeLessThanOrEqual(0.5 * 10 ** -p + 1e-9);
        expect(roundToPrecision(r, p)).toBe(r);
      }),
    );
  });
});

describe('display_value is always a string whatever the type', () => {
  it('is a string for every type, set or blank', async () => {
    const blank = await newTask([ids.a]);
    const res = await m.api(`/tasks/${blank}`);
    expect(res.body.data.custom_fields).toHaveLength(7);
    for (const f of res.body.data.custom_fields) {
      expect(typeof f.display_value).toBe('string');
      expect(f.display_value).toBe('');
    }
  });

  it('is a string for any number at any precision (property)', async () => {
    const task = await newTask([ids.a]);
    await fc.assert(
      fc.asyncProperty(fc.double({ min: -1e9, max: 1e9, noNaN: true }), async (v) => {
        const res = await put(task, { [ids.fields.number as string]: v });
        const f = res.body.data.custom_fields.find((x: { gid: string }) => x.gid === ids.fields.number);
        expect(typeof f.display_value).toBe('string');
        expect(f.display_value).toBe(f.number_value.toFixed(2));
      }),
      { numRuns: 40 },
    );
  });
});

describe('Setting a value to null clears it; absent values are null (blank)', () => {
  it('null clears; blank typed values are null (lists: empty)', async () => {
    const task = await newTask([ids.a], { [ids.fields.text as string]: 'set', [ids.fields.people as string]: [ids.alice] });
    const res = await put(task, { [ids.fields.text as string]: null, [ids.fields.people as string]: null });
    expect(res.status).toBe(200);
    const byGid = Object.fromEntries(res.body.data.custom_fields.map((f: { gid: string }) => [f.gid, f]));
    expect(byGid[ids.fields.text as string].text_value).toBeNull();
    expect(byGid[ids.fields.people as string].people_value).toEqual([]);
    expect(byGid[ids.fields.enum as string].enum_value).toBeNull();
  });
});

describe('Enum option enabled: a disabled option cannot be chosen but stays in metadata for values already set to it', () => {
  it('choosing a disabled option is rejected, for enum and multi_enum', async () => {
    const task = await newTask([ids.a]);
    expect((await put(task, { [ids.fields.enum as string]: ids.retired })).status).toBe(400);
    expect((await put(task, { [ids.fields.multi_enum as string]: [ids.frontend, ids.legacy] })).status).toBe(400);
  });

  it('disabling an option keeps it in metadata and on the values set to it', async () => {
    const task = await newTask([ids.a], { [ids.fields.enum as string]: ids.high });
    const disabled = await m.api(`/enum_options/${ids.high}`, { method: 'PUT', body: { data: { enabled: false } } });
    expect(disabled.body.data.enabled).toBe(false);
    const f = await entry(task, ids.fields.enum as string);
    expect(f.enum_value).toMatchObject({ gid: ids.high, enabled: false });
    expect(f.display_value).toBe('High');
    expect(f.enum_options.map((o: { gid: string }) => o.gid)).toContain(ids.high);
    const other = await newTask([ids.a]);
    expect((await put(other, { [ids.fields.enum as string]: ids.high })).status).toBe(400);
    await m.api(`/enum_options/${ids.high}`, { method: 'PUT', body: { data: { enabled: true } } });
    expect((await put(other, { [ids.fields.enum as string]: ids.high })).status).toBe(200);
  });
});

describe("A custom field value is disabled when the field leaves the task's projects and enabled again when it returns", () => {
  it('removing the field from the project disables the value; adding it back enables it', async () => {
    const task = await newTask([ids.c], { [ids.fields.enum as string]: ids.high });
    expect((await entry(task, ids.fields.enum as string)).enabled).toBe(true);
    const removed = await m.api(`/projects/${ids.c}/removeCustomFieldSetting`, { body: { data: { custom_field: ids.fields.enum } } });
    expect(removed.status).toBe(200);
    const off = await entry(task, ids.fields.enum as string);
    expect(off).toMatchObject({ enabled: false, enum_value: { gid: ids.high }, display_value: 'High' });
    await m.api(`/projects/${ids.c}/addCustomFieldSetting`, { body: { data: { custom_field: ids.fields.enum } } });
    expect((await entry(task, ids.fields.enum as string)).enabled).toBe(true);
  });

  it('moving the task to a project without the field disables it; moving it back enables it', async () => {
    const task = await newTask([ids.a], { [ids.fields.text as string]: 'kept' });
    await m.api(`/tasks/${task}/addProject`, { body: { data: { project: ids.b } } });
    await m.api(`/tasks/${task}/removeProject`, { body: { data: { project: ids.a } } });
    expect(await entry(task, ids.fields.text as string)).toMatchObject({ enabled: false, text_value: 'kept' });
    await m.api(`/tasks/${task}/addProject`, { body: { data: { project: ids.a } } });
    expect(await entry(task, ids.fields.text as string)).toMatchObject({ enabled: true, text_value: 'kept' });
  });

  it('a task in several projects stays enabled while at least one of them has the field', async () => {
    const task = await newTask([ids.a, ids.c], { [ids.fields.enum as string]: ids.high });
    await m.api(`/tasks/${task}/removeProject`, { body: { data: { project: ids.a } } });
    expect((await entry(task, ids.fields.enum as string)).enabled).toBe(true);
    await m.api(`/tasks/${task}/removeProject`, { body: { data: { project: ids.c } } });
    expect((await entry(task, ids.fields.enum as string)).enabled).toBe(false);
  });
});

describe('A disabled custom field value rejects any change other than being cleared', () => {
  it('any new value is 400 and leaves the value alone; null clears it', async () => {
    const task = await newTask([ids.a], { [ids.fields.number as string]: 5, [ids.fields.text as string]: 'keep' });
    await m.api(`/tasks/${task}/removeProject`, { body: { data: { project: ids.a } } });
    for (const value of [6, '7', 5.001]) {
      const res = await put(task, { [ids.fields.number as string]: value });
      expect(res.status).toBe(400);
      expect(res.body.errors[0].message).toMatch(/disabled/);
    }
    // All or nothing: a request mixing a clear and a forbidden change changes nothing.
    expect((await put(task, { [ids.fields.text as string]: null, [ids.fields.number as string]: 8 })).status).toBe(400);
    expect(await entry(task, ids.fields.text as string)).toMatchObject({ text_value: 'keep' });
    expect(await entry(task, ids.fields.number as string)).toMatchObject({ number_value: 5, enabled: false });
    const cleared = await put(task, { [ids.fields.number as string]: null });
    expect(cleared.status).toBe(200);
    expect(await entry(task, ids.fields.number as string)).toBeUndefined();
  });

  it("a field on none of the task's projects cannot be set at all", async () => {
    const task = await newTask([ids.b]);
    expect((await put(task, { [ids.fields.text as string]: 'nope' })).status).toBe(400);
  });
});

describe('Custom fields per project or portfolio: at most 20', () => {
  it('the 21st custom field setting on a project is rejected', async () => {
    const project = (await m.api('/projects', { body: { data: { workspace: ids.org, team: m.mock.model.indexes.projects.get(ids.a)?.team, name: 'Twenty' } } }))
      .body.data.gid;
    for (let i = 0; i < 21; i++) {
      const f = await m.api('/custom_fields', { body: { data: { workspace: ids.org, name: `F${i}`, resource_subtype: 'text' } } });
      const res = await m.api(`/projects/${project}/addCustomFieldSetting`, { body: { data: { custom_field: f.body.data.gid } } });
      expect(res.status).toBe(i < 20 ? 200 : 400);
    }
    const settings = await m.api(`/projects/${project}/custom_field_settings`);
    expect(settings.body.data).toHaveLength(20);
  });
});
