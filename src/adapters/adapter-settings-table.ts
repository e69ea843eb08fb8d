import { adapterFactories } from './adapter-registry';

/** The adapter settings table of docs/adapters.md, generated from the registry (a test keeps it in step). */
export function adapterSettingsTable(): string {
  const rows = adapterFactories.flatMap((f) =>
    f.settings.map((s) => `| \`${f.name}\` | \`${s.env}\` | ${s.default === undefined ? '—' : `\`${s.default}\``} | ${s.description} |`),
  );
  return ['| Adapter | Variable | Default | What it does |', '|---|---|---|---|', ...rows].join('\n');
}

/** The same settings as `sync --help` prints them: per adapter, each variable with its default. */
export function adapterSettingsHelp(factories = adapterFactories): string {
  const lines = ['', 'Adapter settings (environment variables):'];
  for (const f of factories) {
    lines.push('', `  ${f.name}: ${f.description}`);
    for (const s of f.settings) lines.push(`    ${s.env}${s.default === undefined ? '' : ` (default: ${s.default})`}`, `        ${s.description}`);
  }
  return lines.join('\n');
}
