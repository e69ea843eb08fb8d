import path from 'node:path';
import { WORK_MANAGEMENT_SETTINGS, workManagementAdapterFactory } from '../../../src/adapters/work-management';
import { workManagementConfigFromEnv } from '../../../src/adapters/work-management/work-management-config';
import { findAdapterFactory } from '../../../src/adapters/adapter-registry';

const SECRET = 'wm-very-secret-token';
const env = (over: Record<string, string | undefined> = {}) => ({
  WORK_MANAGEMENT_BASE_URL: 'http://127.0.0.1:4000/api/1.0/',
  WORK_MANAGEMENT_TOKEN: SECRET,
  ...over,
});

describe('work-management settings', () => {
  it('reads the environment, with defaults', () => {
    const config = workManagementConfigFromEnv(env());
    expect(config).toEqual({
      baseUrl: 'http://127.0.0.1:4000/api/1.0',
      token: SECRET,
      workspace: undefined,
      sourceName: 'work-management',
      concurrency: 4,
      template: path.join(__dirname, '../../../templates/html/task.mustache'),
      eventStreams: 'auto',
    });
  });

  it('takes every setting', () => {
    const config = workManagementConfigFromEnv(
      env({
        WORK_MANAGEMENT_WORKSPACE: '12345',
        WORK_MANAGEMENT_SOURCE_NAME: 'acme-tasks',
        WORK_MANAGEMENT_CONCURRENCY: '8',
        WORK_MANAGEMENT_TEMPLATE: '/srv/t.mustache',
        WORK_MANAGEMENT_EVENT_STREAMS: 'projects',
      }),
    );
    expect(config).toMatchObject({ workspace: '12345', sourceName: 'acme-tasks', concurrency: 8, template: '/srv/t.mustache', eventStreams: 'projects' });
  });

  it.each([
    [{ WORK_MANAGEMENT_BASE_URL: undefined }, /WORK_MANAGEMENT_BASE_URL/],
    [{ WORK_MANAGEMENT_BASE_URL: 'ftp://example.com' }, /WORK_MANAGEMENT_BASE_URL: expected an absolute http/],
    [{ WORK_MANAGEMENT_TOKEN: '  ' }, /WORK_MANAGEMENT_TOKEN: is required/],
    [{ WORK_MANAGEMENT_WORKSPACE: 'abc' }, /WORK_MANAGEMENT_WORKSPACE: expected a workspace gid/],
    [{ WORK_MANAGEMENT_SOURCE_NAME: 'Bad Name' }, /WORK_MANAGEMENT_SOURCE_NAME/],
    [{ WORK_MANAGEMENT_CONCURRENCY: '0' }, /WORK_MANAGEMENT_CONCURRENCY: at least 1/],
    [{ WORK_MANAGEMENT_CONCURRENCY: 'many' }, /WORK_MANAGEMENT_CONCURRENCY/],
    [{ WORK_MANAGEMENT_EVENT_STREAMS: 'webhooks' }, /WORK_MANAGEMENT_EVENT_STREAMS: expected auto, workspace or projects/],
  ])('names the variable of a bad setting (%p), never a secret', (over, message) => {
    let error: Error | undefined;
    try {
      workManagementConfigFromEnv(env(over));
    } catch (e) {
      error = e as Error;
    }
    expect(error?.message).toMatch(message);
    expect(error?.message).not.toContain(SECRET);
  });

  it('is registered, lists its settings for --help, and builds the adapter without any I/O', async () => {
    expect(findAdapterFactory('work-management')).toBe(workManagementAdapterFactory);
    expect(workManagementAdapterFactory.settings.map((s) => s.env)).toEqual(WORK_MANAGEMENT_SETTINGS.map((s) => s.env));
    const adapter = await workManagementAdapterFactory.create(env(), { logger: undefined as never });
    expect(adapter.name).toBe('work-management');
    expect(JSON.stringify(workManagementAdapterFactory.settings)).not.toContain(SECRET);
  });
});
