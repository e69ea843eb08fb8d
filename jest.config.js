/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    // Type errors are `npm run lint`'s job; isolated transpiling keeps the suite fast.
    '^.+\\.ts$': ['ts-jest', { isolatedModules: true }],
  },
  globalSetup: '<rootDir>/test/setup/global-setup.ts',
  testTimeout: 30000,
};
