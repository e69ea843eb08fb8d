import { startMock, type ApiResult, type RunningMock } from './mock-harness';

let m: RunningMock;
let org: string;

beforeAll(async () => {
  m = await startMock({ seed: 'errors', size: 'tiny' });
  org = m.mock.organization.organization;
});
afterAll(() => m.close());

const DOCS = 'https://developers.work-management.example/docs/errors';

function expectHelpLink(res: ApiResult): void {
  expect(res.status).toBeGreaterThanOrEqual(400);
  const errors = res.body.errors as Array<{ help: string }>;
  expect(errors.length).toBeGreaterThan(0);
  for (const e of errors) {
    expect(e.help).toBe(`For more information on API status codes and how to handle them, read the docs on errors: ${DOCS}`);
    const links = e.help.match(/https?:\/\/\S+/g) ?? [];
    expect(links.map((l) => new URL(l).host)).toEqual(['developers.work-management.example']);
  }
}

describe('Error bodies link to the documentation of errors (help) on a neutral domain', () => {
  it('every kind of error carries the same help link: auth, routing, input, events, batch actions, 500s', async () => {
    expectHelpLink(await m.api('/users/me', { token: '' }));
    expectHelpLink(await m.api('/no/such/route'));
    expectHelpLink(await m.call('/not-the-api'));
    expectHelpLink(await m.api('/tasks'));
    expectHelpLink(await m.api('/tasks', { raw: '{"data":', method: 'POST' }));
    expectHelpLink(await m.api(`/events?resource=${org}`));
    const batch = await m.api('/batch', { body: { data: { actions: [{ relative_path: '/no/such/route', method: 'get' }] } } });
    expect(batch.status).toBe(200);
    expectHelpLink({ ...batch, status: batch.body.data[0].status_code, body: batch.body.data[0].body });
    m.mock.setHostility({ faultRate: 1, faultStatuses: [500] });
    try {
      const fault = await m.api('/users/me');
      expectHelpLink(fault);
      expect(fault.body.errors[0].phrase).toEqual(expect.any(String));
    } finally {
      m.mock.setHostility({ faultRate: 0 });
    }
  });

  it('no error body names a vendor', async () => {
    for (const res of [await m.api('/users/me', { token: '' }), await m.api('/tasks'), await m.api('/no/such/route')]) {
      expect(res.text).not.toMatch(/asana/i);
    }
  });
});
