import { settings } from './config-schema';

/** The settings table of docs/settings.md, generated from the schema (a test keeps the README in step). */
export function settingsTable(): string {
  const rows = Object.values(settings).map((s) => `| \`${s.env}\` | ${s.default === undefined ? '—' : `\`${s.default}\``} | ${s.description} |`);
  return ['| Variable | Default | What it does |', '|---|---|---|', ...rows].join('\n');
}
