import { adapterFactories } from './adapter-registry';

/** The README's adapter settings, generated from the registry (a test keeps the README in step). */
export function adapterSettingsTable(): string {
  const rows = adapterFactories.flatMap((f) => f.settings.map((s) => `| \`${f.name}\` | \`${s.env}\` | ${s.default === undefined ? '—' : `\`${s.default}\``} | ${s.description} |`));
  return ['| Adapter | Variable | Default | What it does |', '|---|---|---|---|', ...rows].join('\n');
}
