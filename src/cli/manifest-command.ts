import type { Command } from 'commander';
import type { AccessEntry, FileRecord, GroupRecord, SyncEvent, UserRecord } from '../adapters/adapter';
import { loadRestManifest, RestAdapter, RestManifestError } from '../adapters/rest';
import { createLogger } from '../logging/create-logger';
import { registerManifestInit } from './manifest-init-command';
import type { Runtime } from './runtime';

/** What a check read: the directory (to name the principals of access lists), the documents shown, the failures met. */
interface Seen {
  users: Map<string, UserRecord>;
  groups: Map<string, GroupRecord>;
  files: FileRecord[];
  failures: string[];
}

function describeEntry(entry: AccessEntry, seen: Seen): string {
  if (entry.type === 'EVERYONE') return 'everyone';
  if (entry.type === 'USER') {
    const user = seen.users.get(entry.nativeId);
    return user ? `user ${user.email}${user.active ? '' : ' (inactive)'}` : `user ${entry.nativeId} (not among the users listed: grants nothing)`;
  }
  const group = seen.groups.get(entry.nativeId);
  return group
    ? `group ${group.name ?? entry.nativeId} (${group.members.length} direct member${group.members.length === 1 ? '' : 's'})`
    : `group ${entry.nativeId} (not among the groups listed: grants nothing)`;
}

function describeFile(file: FileRecord, seen: Seen): string[] {
  const content =
    file.content.kind === 'binary'
      ? `binary, fetched when needed${file.content.version ? ` (version ${file.content.version})` : ''}`
      : 'html' in file.content
        ? `HTML, ${file.content.html.length} characters`
        : `HTML, read when needed${file.content.version ? ` (version ${file.content.version.split('|')[0]})` : ''}`;
  return [
    `document ${file.nativeId}: ${JSON.stringify(file.name)} ${file.mimeType}, ${content}`,
    `  url: ${file.externalUrl}${file.parent ? `; parent: ${file.parent.name}` : ''}`,
    `  access: ${file.access.length === 0 ? 'nobody' : file.access.map((e) => describeEntry(e, seen)).join(', ')}`,
  ];
}

/** Reads through the adapter until `limit` documents are seen (the directory first, as a sync does); a thrown failure is kept. */
async function read(adapter: RestAdapter, limit: number, logger: ReturnType<typeof createLogger>): Promise<Seen & { error?: Error }> {
  const seen: Seen = { users: new Map(), groups: new Map(), files: [], failures: [] };
  const controller = new AbortController();
  const record = (event: SyncEvent): void => {
    if (event.type === 'user') seen.users.set(event.user.nativeId, event.user);
    else if (event.type === 'group') seen.groups.set(event.group.nativeId, event.group);
    else if (event.type === 'file') seen.files.push(event.file);
    else if (event.type === 'failure') seen.failures.push(`${event.kind ?? 'item'} ${event.nativeId ?? '?'}: ${event.error.message}`);
  };
  try {
    for await (const event of adapter.full({ logger, signal: controller.signal, now: () => new Date() })) {
      record(event);
      if (seen.files.length >= limit) break;
    }
  } catch (error) {
    return { ...seen, error: error as Error };
  }
  return seen;
}

export function registerManifestCommand(program: Command, runtime: Runtime): void {
  const manifest = program.command('manifest').description('Declarative REST sources (docs/declarative-sources.md): start a manifest, check one.');
  registerManifestInit(manifest, runtime);
  manifest
    .command('check')
    .argument('<file>', 'manifest file (YAML)')
    .option('--limit <n>', 'documents to read and show', '5')
    .description(
      'Validate a REST manifest, then call the API it describes: prints the users and groups read, the first documents with their resolved access lists, every failure met, and the requests it cost. Secrets are read from the environment the manifest names; nothing is written.',
    )
    .action(async function checkManifest(file: string, flags: { limit: string }) {
      const limit = Number(flags.limit);
      if (!Number.isInteger(limit) || limit < 1) {
        runtime.print('error: --limit must be a whole number of at least 1');
        runtime.setExitCode(1);
        return;
      }
      let loaded;
      try {
        loaded = loadRestManifest(file);
      } catch (error) {
        if (!(error instanceof RestManifestError)) throw error;
        runtime.print(error.message);
        runtime.setExitCode(1);
        return;
      }
      const streams = Object.keys(loaded.manifest.streams).join(', ');
      runtime.print(`${file}: valid (version ${loaded.manifest.version}; streams: ${streams})`);
      const adapter = new RestAdapter({ name: loaded.manifest.name ?? 'rest', loaded, env: runtime.env });
      const seen = await read(adapter, limit, createLogger({ level: 'warn' }));
      const active = [...seen.users.values()].filter((u) => u.active).length;
      runtime.print(`users: ${seen.users.size} (${active} active); groups: ${seen.groups.size}`);
      for (const f of seen.files) for (const line of describeFile(f, seen)) runtime.print(line);
      for (const failure of seen.failures) runtime.print(`failed: ${failure}`);
      if (seen.error) runtime.print(`error: the run stopped: ${seen.error.message}`);
      const gate = adapter.lastRun?.gate;
      if (gate && gate.waited + gate.budgetWaited > 0)
        runtime.print(`rate limits: ${gate.waited} request(s) waited for the API's window to reset, ${gate.budgetWaited} for the source's budget`);
      runtime.print(`${seen.files.length} document(s) shown; ${adapter.lastRun?.requests ?? 0} request(s) to the API`);
      if (seen.error || seen.failures.length > 0) runtime.setExitCode(1);
    });
}
