import type { AdapterFactory } from './adapter-factory';

/**
 * Every adapter the CLI can run, by name. `new-adapter <name>` adds an import and an entry at the
 * marked lines; keep the markers.
 */
// <new-adapter:imports>
import { exampleWikiAdapterFactory } from './example-wiki';
import { filesystemAdapterFactory } from './filesystem';
import { restAdapterFactory } from './rest';
import { sqlAdapterFactory } from './sql';
import { workManagementAdapterFactory } from './work-management';

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
