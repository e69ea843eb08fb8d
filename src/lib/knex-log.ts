import type { Knex } from 'knex';

/**
 * knex's `log` option for every pool the gateway opens. knex prints a failed connection attempt
 * itself, stack and all ("Acquire connection error: …"), and then throws the same error to the
 * caller, which names it in one line (the stack shown with LOG_LEVEL=debug): that copy is dropped.
 * knex's other warnings and deprecations go to stderr as knex would print them.
 */
export const KNEX_LOG: Knex.Config['log'] = {
  warn(message: unknown): void {
    if (typeof message === 'string' && message.startsWith('Acquire connection error')) return;
    console.warn(message);
  },
};
