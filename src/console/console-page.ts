import type { Config } from '../config/config-schema';
import type { Logger } from '../logging/create-logger';
import type { Policy } from '../policies/policy-types';
import type { Db } from '../staging/database/create-db';
import type { BlobHealth } from './blob-health';

/** What asking for a sync from the console does: enqueue a job, or record a request; says what it did. */
export type SyncRequest = (source: string, mode: 'full' | 'incremental') => Promise<string>;

/** What every page's data and actions are computed from. */
export interface ConsoleContext {
  db: Db;
  config: Pick<Config, 'databaseUrl' | 'syncQueueSchema'>;
  logger: Logger;
  now: () => Date;
  /** How "retry now" and "run a full sync" reach the syncs; absent: those actions say they cannot. */
  requestSync?: SyncRequest;
  /** The blob store's checks (the blobs page); absent: that page says it cannot look. */
  blobHealth?: BlobHealth;
  /** The access policies by source (`ACCESS_POLICIES`), so the access explorer names the rule behind a policy's groups. */
  accessPolicies?: () => Promise<Readonly<Record<string, Policy>>>;
}

/** An action of a page: `POST /console/api/<page>/<name>` (JSON or a form), CSRF-checked. */
export interface ConsoleAction {
  name: string;
  /** `fields` are the request's body (form fields or JSON), strings only; a bad one throws a GatewayError. */
  run(ctx: ConsoleContext, fields: Readonly<Record<string, string>>): Promise<{ message: string }>;
}

/**
 * One page of the console, plugged in by adding it to `CONSOLE_PAGES` (console-pages.ts):
 *
 * - `GET /console/<path>` renders `templates/console/pages/<template>.eta` inside the layout with
 *   `it.data` = what `data` returns (and `it.csrfToken`, `it.page`, `it.query`);
 * - `GET /console/api/<path>` answers the same `data` as JSON (the page shows nothing else);
 * - each action is `POST /console/api/<path>/<action>`; a form posting there with `_csrf` (or
 *   htmx, which sends the `x-csrf-token` header the layout sets) gets a fragment or a redirect
 *   back to the page, a script (Bearer) gets JSON.
 *
 * `query` is the request's query string (strings only); a page validates what it reads from it
 * and throws `GatewayError('INPUT_VALIDATION_FAILED', …)` on bad input (never a 500).
 */
export interface ConsolePage<T = unknown> {
  path: string;
  title: string;
  template: string;
  data(ctx: ConsoleContext, query: Readonly<Record<string, string>>): Promise<T>;
  actions?: readonly ConsoleAction[];
}
