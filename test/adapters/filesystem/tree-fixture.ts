import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import pino from 'pino';
import type { AdapterContext, FileRecord, SyncEvent } from '../../../src/adapters/adapter';
import { contentBytes } from '../../helpers/content-bytes';

/** Every fixture file's mtime: well in the past, so nothing counts as "racy" (modified during a scan). */
export const PAST = new Date('2025-01-01T00:00:00Z');

export const DIRECTORY = `
users:
  - { id: ana, email: ana@example.com, full_name: Ana, active: true }
  - { id: bo, email: bo@example.com, full_name: Bo, active: false }
groups:
  - { id: eng, name: Engineering, members: [{ user: ana }, { group: core }] }
  - { id: core, name: Core, members: [{ user: bo }] }
`;

/** Temp folders made by `makeTree`/`makeDir`, removed by `removeTrees` (call it in afterAll). */
const made: string[] = [];

export function makeDir(prefix = 'fs-tree-'): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  made.push(dir);
  return dir;
}

/** Writes `files` (relative path -> content) under a new temp root, with DIRECTORY unless told not to; mtimes set to PAST. */
export function makeTree(files: Record<string, string | Buffer>, withDirectory = !('_directory.yaml' in files)): string {
  const root = makeDir();
  writeFiles(root, withDirectory ? { '_directory.yaml': DIRECTORY, ...files } : files);
  return root;
}

export function writeFiles(root: string, files: Record<string, string | Buffer>, mtime: Date = PAST): void {
  for (const [rel, content] of Object.entries(files)) {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, content);
    fs.utimesSync(file, mtime, mtime);
  }
}

export function removeTrees(): void {
  for (const dir of made.splice(0)) fs.rmSync(dir, { recursive: true, force: true });
}

/** A context with a silent (or capturing) logger and a signal that never fires unless given one. */
export function context(options: { signal?: AbortSignal; logs?: Array<Record<string, unknown>> } = {}): AdapterContext {
  const logs = options.logs;
  const logger = logs
    ? pino({ level: 'debug' }, { write: (line: string) => void logs.push(JSON.parse(line) as Record<string, unknown>) })
    : pino({ level: 'silent' });
  return { logger, signal: options.signal ?? new AbortController().signal, now: () => new Date('2026-05-01T00:00:00Z') };
}

export async function collect(events: AsyncIterable<SyncEvent>): Promise<SyncEvent[]> {
  const out: SyncEvent[] = [];
  for await (const e of events) out.push(e);
  return out;
}

export function filesOf(events: readonly SyncEvent[]): FileRecord[] {
  return events.flatMap((e) => (e.type === 'file' ? [e.file] : []));
}

export function failuresOf(events: readonly SyncEvent[]): Array<{ nativeId: string | undefined; message: string }> {
  return events.flatMap((e) => (e.type === 'failure' ? [{ nativeId: e.nativeId, message: e.error.message }] : []));
}

export function fileOf(events: readonly SyncEvent[], nativeId: string): FileRecord {
  const file = filesOf(events).find((f) => f.nativeId === nativeId);
  if (!file)
    throw new Error(
      `no file ${nativeId} among ${filesOf(events)
        .map((f) => f.nativeId)
        .join(', ')}`,
    );
  return file;
}

export function htmlOf(file: FileRecord): string {
  if (!('html' in file.content)) throw new Error(`${file.nativeId} is not inline HTML at hand`);
  return file.content.html;
}

export const bytesOf = contentBytes;
