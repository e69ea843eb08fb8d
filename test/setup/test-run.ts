/**
 * Names the test run for every test process of it: the global setup sets it once, before any test
 * process starts, and the first test file that starts the CLI builds the program for the whole run
 * (test/helpers/built-program.ts).
 */
export const TEST_RUN_VARIABLE = 'CONTENT_GATEWAY_TEST_RUN';
