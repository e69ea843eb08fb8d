/**
 * A `new-adapter` request that cannot be carried out as asked (bad name, folder exists, registry
 * markers missing). The message says what to do; the CLI shows it without a stack trace.
 */
export class ScaffoldError extends Error {
  override readonly name = 'ScaffoldError';
}
