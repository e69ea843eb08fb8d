import type { AdapterFactory } from './adapter-factory';

/**
 * Every adapter the CLI can run, by name. It imports only each adapter's factory (name, help,
 * settings): an adapter's code is loaded by its factory's `create`, so a process loads only the
 * adapter it runs. `new-adapter <name>` adds an import and an entry at the marked lines; keep the
 * markers.
 */
// <new-adapter:imports>
import { exampleWikiAdapterFactory } from './example-wiki/example-wiki-adapter-factory';
import { filesystemAdapterFactory } from './filesystem/filesystem-adapter-factory';
import { restAdapterFactory } from './rest/rest-adapter-factory';
import { sqlAdapterFactory } from './sql/sql-adapter-factory';
import { workManagementAdapterFactory } from './work-management/work-management-adapter-factory';

export const adapterFactories: readonly AdapterFactory[] = [
  filesystemAdapterFactory,
  workManagementAdapterFactory,
  sqlAdapterFactory,
  exampleWikiAdapterFactory,
  restAdapterFactory,
  // <new-adapter:entries>
];

export function findAdapterFactory(name: string): AdapterFactory | undefined {
  return adapterFactories.find((f) => f.name === name);
}
