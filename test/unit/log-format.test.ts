import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { createLogger, wantsPrettyLogs } from '../../src/logging/create-logger';
import { runCli } from '../e2e/cli-process';

/** Readable log lines on a terminal (or with LOG_FORMAT=pretty), JSON for collectors (issue 29 point 10). */
describe('log format', () => {
  it('auto is readable on a terminal and JSON otherwise; json and pretty are what they say', () => {
    expect([wantsPrettyLogs('auto', true), wantsPrettyLogs('auto', false), wantsPrettyLogs('json', true), wantsPrettyLogs('pretty', false)]).toEqual([
      true,
      false,
      false,
      true,
    ]);
  });

  it('pretty lines are text with the level and message, and still redact secrets', () => {
    let out = '';
    const sink = new Writable({ write: (chunk: Buffer, _encoding, done) => ((out += chunk.toString()), done()) });
    const logger = createLogger({ level: 'info', pretty: true, destination: sink as never });
    logger.info({ token: 'a-secret-value', files: 3 }, 'synced the tree');
    expect(out).toMatch(/INFO.*synced the tree/);
    expect(out).not.toMatch(/^\{/);
    expect(out).not.toContain('a-secret-value');
  });

  it('a sync with LOG_FORMAT=pretty logs readable lines, and JSON by default off a terminal', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-log-format-'));
    try {
      const env = {
        SQLITE_PATH: path.join(dir, 'gw.sqlite'),
        BLOB_DIR: path.join(dir, 'blobs'),
        DEMO_CONTENT: 'off',
        FILESYSTEM_ROOT: path.join(__dirname, '../../src/demo/corpus'),
        LOG_LEVEL: 'info',
      };
      const pretty = await runCli(['sync', 'filesystem'], { ...env, LOG_FORMAT: 'pretty' });
      const json = await runCli(['sync', 'filesystem', '--full'], env);
      expect(pretty.stdout).toMatch(/^\[[\d:.]+\] INFO: /m);
      expect(pretty.stdout).not.toMatch(/^\{"level"/m);
      expect(json.stdout).toMatch(/^\{"level":30,/m);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
