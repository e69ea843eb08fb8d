import path from 'node:path';

/**
 * Absolute path of the bundled corpus. Worked out from this module's own location rather than by
 * probing the disk for package.json, because importing a module must do no I/O: the source runs
 * as <pkg>/src/demo/*.ts (tsx, the test runner) and the build as <pkg>/dist/src/demo/*.js.
 */
export const DEMO_CORPUS_DIR: string = path.join(
  path.resolve(__dirname, ...(path.extname(__filename) === '.js' ? ['..', '..', '..'] : ['..', '..'])),
  'src',
  'demo',
  'corpus',
);
