import type { AccessUser, FileAccess, UserAccess } from './effective-access';
import { terminalSafe } from '../report/terminal-safe';

const who = (u: AccessUser & { via?: string }) => `${u.email ?? `(no email) ${u.id}`}${u.name ? ` (${u.name})` : ''}${u.via ? ` via ${u.via}` : ''}`;

/** `who-can-see` as text. */
export function renderFileAccess(a: FileAccess): string {
  const lines = [`File ${a.file.id}${a.file.name ? ` "${a.file.name}"` : ''}${a.file.status ? ` (${a.file.status})` : ''}`];
  if (a.file.status === 'deleted') lines.push('  The file is deleted: it is not searchable, whatever its access list says.');
  if (a.everyone) lines.push('  GROUP * — every active user.');
  lines.push(`  ${a.users.length} active user${a.users.length === 1 ? '' : 's'} can see it${a.users.length ? ':' : '.'}`);
  for (const u of a.users) lines.push(`    ${who(u)}`);
  if (a.inactive.length) {
    lines.push(`  ${a.inactive.length} inactive user${a.inactive.length === 1 ? '' : 's'} reached by the entries (not counted):`);
    for (const u of a.inactive) lines.push(`    ${who(u)}`);
  }
  if (a.unresolved.length) lines.push(`  Entries naming no served user or group: ${a.unresolved.map((p) => `${p.type} ${p.id}`).join(', ')}`);
  if (a.ignored.length) lines.push(`  Entries the platform ignores: ${a.ignored.map((p) => `${p.type} ${p.id} ${p.action ?? '(no action)'}`).join(', ')}`);
  return lines.map(terminalSafe).join('\n');
}

/** `what-can <email> see` as text. */
export function renderUserAccess(question: string, a: UserAccess): string {
  const users = a.users.map((u) => `${u.id}${u.active ? '' : ' (inactive)'}`).join(', ');
  const lines = [`${question} — user${a.users.length === 1 ? '' : 's'} ${users}`];
  if (a.active) {
    lines.push(`  can see ${a.files.length} file${a.files.length === 1 ? '' : 's'}${a.files.length ? ':' : '.'}`);
    for (const f of a.files) lines.push(`    ${f.id}${f.name ? ` "${f.name}"` : ''} via ${f.via}`);
  } else {
    lines.push('  is inactive: sees nothing (inactive users do not count as able to see).');
  }
  if (a.wouldSee.length) {
    lines.push(`  ${a.active ? 'Further files granted only to an inactive account with this email' : 'Would see on reactivation'} (${a.wouldSee.length}):`);
    for (const f of a.wouldSee) lines.push(`    ${f.id}${f.name ? ` "${f.name}"` : ''} via ${f.via}`);
  }
  return lines.map(terminalSafe).join('\n');
}
