/**
 * A policy file the loader refuses: syntax, schema, or a construct the compiler cannot compile
 * soundly. The message names the file, the rule and the position (1-based line and column).
 */
export class PolicyError extends Error {
  constructor(
    message: string,
    readonly details: { file?: string; rule?: string; line?: number; column?: number } = {},
  ) {
    super(message);
    this.name = 'PolicyError';
  }
}
