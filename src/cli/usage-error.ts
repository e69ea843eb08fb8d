/** A mistake in how a command was called (a missing argument, a bad value): printed as one line, no stack. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}
