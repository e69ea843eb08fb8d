const fs = require('node:fs');
const path = require('node:path');

/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  // The kit's own tests, when the kit is there (a fork may drop it, and a copy may leave it out).
  roots: ['<rootDir>/test', ...(fs.existsSync(path.join(__dirname, 'kit/test')) ? ['<rootDir>/kit/test'] : [])],
  // The kit imports the gateway only through the entry points package.json exports (tsconfig's paths).
  moduleNameMapper: {
    '^content-gateway$': '<rootDir>/src/index.ts',
    '^content-gateway/(lib|logging|conformance|platform)$': '<rootDir>/src/$1/index.ts',
  },
  testMatch: ['**/*.test.ts'],
  // Most suites wait on child processes, sockets and databases rather than compute: one worker per
  // core. Jest's default (cores - 1) runs the suite in band on a 2-core machine such as CI's.
  maxWorkers: '100%',
  transform: {
    // swc strips the types file by file (type errors are `npm run lint`'s job), as tsconfig's
    // isolatedModules allows: a fresh clone's first run transpiles the whole tree in seconds.
    '^.+\\.ts$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'typescript' } }, module: { type: 'commonjs' }, sourceMaps: 'inline' }],
    // openapi-backend's $ref parser ships only as ES modules, which Node 20 loads natively but
    // jest's CommonJS runtime does not: transpile that one package.
    '^.+\\.js$': ['@swc/jest', { jsc: { target: 'es2022', parser: { syntax: 'ecmascript' } }, module: { type: 'commonjs' } }],
  },
  transformIgnorePatterns: ['/node_modules/(?!(openapi-backend/node_modules/)?@apidevtools/json-schema-ref-parser/)'],
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  globalTeardown: '<rootDir>/test/setup/global-teardown.ts',
  // An upper bound, not a measure: generous enough for a scenario on a loaded 2-core machine.
  testTimeout: 60000,
};
