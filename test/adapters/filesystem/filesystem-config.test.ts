import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import { isIncremental } from '../../../src/adapters/adapter';
import { findAdapterFactory } from '../../../src/adapters/adapter-registry';
import { createFilesystemAdapter, filesystemAdapterFactory, filesystemConfigFromEnv } from '../../../src/adapters/filesystem';

describe('filesystem adapter settings', () => {
  it('needs FILESYSTEM_ROOT, naming it when missing', () => {
    expect(() => filesystemConfigFromEnv({})).toThrow(/FILESYSTEM_ROOT: is required/);
    expect(() => filesystemConfigFromEnv({ FILESYSTEM_ROOT: '  ' })).toThrow(/FILESYSTEM_ROOT/);
  });

  it('defaults the rest: directory file at the root, file:// URLs, source name "filesystem", a worker thread when there is a second CPU', () => {
    expect(filesystemConfigFromEnv({ FILESYSTEM_ROOT: '/srv/docs' })).toEqual({
      root: '/srv/docs',
      directoryFile: undefined,
      baseUrl: undefined,
      sourceName: 'filesystem',
      workerThread: os.availableParallelism() > 1,
    });
  });

  it.each([
    ['true', true],
    ['yes', true],
    ['1', true],
    ['false', false],
    ['no', false],
    ['0', false],
  ])('reads FILESYSTEM_WORKER_THREAD=%s as %s', (value, expected) => {
    expect(filesystemConfigFromEnv({ FILESYSTEM_ROOT: '/srv/docs', FILESYSTEM_WORKER_THREAD: value }).workerThread).toBe(expected);
  });

  it('resolves paths (a relative directory file from the root) and trims the base URL', () => {
    expect(
      filesystemConfigFromEnv({
        FILESYSTEM_ROOT: '/srv/docs/',
        FILESYSTEM_DIRECTORY_FILE: 'people/dir.yaml',
        FILESYSTEM_BASE_URL: 'https://intranet.example/kb/',
        FILESYSTEM_SOURCE_NAME: 'kb-share',
      }),
    ).toMatchObject({ root: '/srv/docs', directoryFile: '/srv/docs/people/dir.yaml', baseUrl: 'https://intranet.example/kb', sourceName: 'kb-share' });
    expect(filesystemConfigFromEnv({ FILESYSTEM_ROOT: 'docs', FILESYSTEM_DIRECTORY_FILE: '/etc/dir.yaml' })).toMatchObject({
      root: path.resolve('docs'),
      directoryFile: '/etc/dir.yaml',
    });
  });

  it.each([
    [{ FILESYSTEM_SOURCE_NAME: 'Bad_Name' }, /FILESYSTEM_SOURCE_NAME: expected lower-case/],
    [{ FILESYSTEM_BASE_URL: 'intranet/kb' }, /FILESYSTEM_BASE_URL: expected an absolute URL/],
    [{ FILESYSTEM_WORKER_THREAD: 'sometimes' }, /FILESYSTEM_WORKER_THREAD: expected true or false/],
  ])('refuses %j, naming the variable', (env, problem) => {
    expect(() => filesystemConfigFromEnv({ FILESYSTEM_ROOT: '/srv/docs', ...env })).toThrow(problem);
  });

  it('is registered as "filesystem", documents its variables, and builds an incremental adapter without touching the disk', async () => {
    expect(findAdapterFactory('filesystem')).toBe(filesystemAdapterFactory);
    expect(filesystemAdapterFactory.settings.map((s) => s.env)).toEqual([
      'FILESYSTEM_ROOT',
      'FILESYSTEM_DIRECTORY_FILE',
      'FILESYSTEM_BASE_URL',
      'FILESYSTEM_SOURCE_NAME',
      'FILESYSTEM_WORKER_THREAD',
    ]);
    const adapter = await filesystemAdapterFactory.create(
      { FILESYSTEM_ROOT: '/does/not/exist', FILESYSTEM_SOURCE_NAME: 'share' },
      { logger: pino({ level: 'silent' }) },
    );
    expect(adapter.name).toBe('share');
    expect(isIncremental(adapter)).toBe(true);
    expect(createFilesystemAdapter({ root: '/x' }).name).toBe('filesystem');
  });
});
