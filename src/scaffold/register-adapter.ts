import type { AdapterNames } from './render-adapter-template';
import { ScaffoldError } from './scaffold-error';

export const IMPORTS_MARKER = '// <new-adapter:imports>';
export const ENTRIES_MARKER = '// <new-adapter:entries>';

/**
 * Adds an adapter's factory to the text of `src/adapters/adapter-registry.ts`: its import (of the
 * factory's own small module, never the adapter's index, so the registry stays light) below the
 * imports marker, after the imports already there, and its entry just above the entries marker,
 * indented like it. Pure and idempotent: a line already present is not added again.
 */
export function registerAdapter(registry: string, names: AdapterNames, file = 'src/adapters/adapter-registry.ts'): { text: string; changed: boolean } {
  const factory = `${names.camelName}AdapterFactory`;
  const importLine = `import { ${factory} } from './${names.name}/${names.name}-adapter-factory';`;
  const lines = registry.split('\n');
  const markerAt = (marker: string): number => {
    const at = lines.flatMap((line, i) => (line.trim() === marker ? [i] : []));
    if (at.length !== 1 || at[0] === undefined) {
      throw new ScaffoldError(
        `${file} must contain the line "${marker}" exactly once (found ${at.length}); new-adapter registers adapters there. ` +
          `Put it back (imports marker above the adapter imports, entries marker as the last line of adapterFactories), or register the adapter by hand.`,
      );
    }
    return at[0];
  };
  markerAt(IMPORTS_MARKER); // both markers are checked before anything changes
  const entriesAt = markerAt(ENTRIES_MARKER);
  const present = (line: string) => lines.some((l) => l.trim() === line.trim());
  const indent = /^\s*/.exec(lines[entriesAt] ?? '')?.[0] ?? '  ';
  const entryLine = `${indent}${factory},`;

  let changed = false;
  if (!present(entryLine)) {
    lines.splice(entriesAt, 0, entryLine);
    changed = true;
  }
  if (!present(importLine)) {
    let at = markerAt(IMPORTS_MARKER) + 1;
    while (at < lines.length && /^import\s/.test(lines[at] ?? '')) at++;
    lines.splice(at, 0, importLine);
    changed = true;
  }
  return { text: lines.join('\n'), changed };
}
