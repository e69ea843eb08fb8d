import type { Logger } from '../logging/create-logger';
import type { Adapter } from './adapter';

/**
 * How the CLI finds and builds an adapter: its name, a line of help, the environment variables it
 * reads (for `--help` and the README), and a constructor that validates its own settings.
 *
 * Each adapter's factory is a small module of its own (`<name>-adapter-factory.ts`) that imports
 * nothing of the adapter's code: the registry lists every adapter, and `create` loads the one that
 * runs with `import()`, so `sync filesystem` never loads the SQL drivers.
 */
export interface AdapterFactory {
  /** Also the id prefix of everything the adapter yields. */
  readonly name: string;
  readonly description: string;
  readonly settings: ReadonlyArray<{ env: string; description: string; default?: string }>;
  /** Loads the adapter's code and builds it; rejects with an Error naming the variable when a setting is missing or invalid. */
  create(env: Record<string, string | undefined>, deps: { logger: Logger }): Promise<Adapter>;
}
