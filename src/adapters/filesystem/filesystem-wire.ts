import type { FileRecord, InlineHtml, SyncEvent } from '../adapter';
import * as sourceErrors from '../source-error';
import type { FilesystemCheckpoint } from './filesystem-checkpoint';
import type { FilesystemConfig } from './filesystem-config';
import { AccessRuleError, DirectoryFileError, SidecarUnreadableError } from './filesystem-mapping';
import { WalkedBinaryContent, type WalkedFile } from './filesystem-reads';

/**
 * The filesystem adapter's events as they cross from its worker thread to the sync thread.
 * Structured cloning keeps plain data as it is, but not a binary file's `open()` nor an error's
 * class: a binary file travels as what opening it needs, an error as its name, message and
 * action, and both are rebuilt on arrival (the engine tells errors apart by class and action).
 */

export interface WireError {
  name: string;
  message: string;
  /** A SourceError's action. */
  action?: sourceErrors.SourceErrorAction;
  code?: string;
}

type WireFile = Omit<FileRecord, 'content'> & {
  content: InlineHtml | { kind: 'binary'; realRoot: string; walked: WalkedFile; version: string };
};

export type WireEvent =
  | Exclude<SyncEvent, { type: 'file' } | { type: 'failure' }>
  | { type: 'file'; file: WireFile }
  | (Omit<Extract<SyncEvent, { type: 'failure' }>, 'error'> & { error: WireError });

/** A log call of the adapter in the worker, replayed on the run's logger. */
export interface WireLog {
  level: 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'fatal';
  fields: Record<string, unknown>;
  message: string;
}

/** Error classes rebuilt by name; any other error arrives as a SourceError with its action, or a plain Error. */
const KNOWN_ERRORS: ReadonlyMap<string, new (message: string) => Error> = new Map<string, new (message: string) => Error>(
  [
    sourceErrors.SourceError,
    sourceErrors.SourceAuthError,
    sourceErrors.SourcePermissionError,
    sourceErrors.SourceNotFoundError,
    sourceErrors.SourceUnavailableError,
    sourceErrors.SourceRequestError,
    sourceErrors.FullRunRequired,
    AccessRuleError,
    SidecarUnreadableError,
    DirectoryFileError,
  ].map((type) => [type.name, type]),
);

export function toWireError(error: unknown): WireError {
  if (!(error instanceof Error)) return { name: 'Error', message: String(error) };
  const wire: WireError = { name: error.name, message: error.message };
  if (sourceErrors.isSourceError(error)) wire.action = error.action;
  const code = (error as NodeJS.ErrnoException).code;
  if (typeof code === 'string') wire.code = code;
  return wire;
}

export function fromWireError(wire: WireError): Error {
  const Known = KNOWN_ERRORS.get(wire.name);
  let error: Error;
  if (Known) error = new Known(wire.message);
  else if (wire.action !== undefined) {
    error = new sourceErrors.SourceError(wire.message);
    // `action` is an own field set by the constructor: the error keeps the one it was thrown with.
    Object.defineProperty(error, 'action', { value: wire.action, enumerable: true });
  } else error = new Error(wire.message);
  error.name = wire.name;
  if (wire.code !== undefined) (error as NodeJS.ErrnoException).code = wire.code;
  return error;
}

export function toWireEvent(event: SyncEvent): WireEvent {
  if (event.type === 'failure') return { ...event, error: toWireError(event.error) };
  if (event.type !== 'file' || event.file.content.kind === 'html') return event as WireEvent;
  const content = event.file.content;
  if (!(content instanceof WalkedBinaryContent)) throw new Error(`${event.file.nativeId}: only walked files can cross threads`);
  return { type: 'file', file: { ...event.file, content: { kind: 'binary', realRoot: content.realRoot, walked: content.walked, version: content.version } } };
}

/** Rebuilds what cloning lost; a file event is mended in place (it is the receiver's own copy). */
export function fromWireEvent(wire: WireEvent): SyncEvent {
  if (wire.type === 'failure') return { ...wire, error: fromWireError(wire.error) };
  if (wire.type !== 'file' || wire.file.content.kind === 'html') return wire as SyncEvent;
  const { realRoot, walked, version } = wire.file.content;
  const file = wire.file as unknown as FileRecord;
  file.content = new WalkedBinaryContent(realRoot, walked, version);
  return { type: 'file', file };
}

/** Marks a log field that was an error (log fields are the adapter's own: no clash). */
const WIRE_ERROR = '$wireError';

/** Log fields as they can cross threads: an error travels as a WireError and is logged as an Error again. */
export function toWireFields(fields: unknown): Record<string, unknown> {
  if (typeof fields !== 'object' || fields === null) return {};
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) out[key] = value instanceof Error ? { [WIRE_ERROR]: toWireError(value) } : value;
  return out;
}

export function fromWireFields(fields: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(fields)) {
    const wrapped =
      typeof value === 'object' && value !== null && WIRE_ERROR in value ? (value as Record<typeof WIRE_ERROR, WireError>)[WIRE_ERROR] : undefined;
    out[key] = wrapped ? fromWireError(wrapped) : value;
  }
  return out;
}

// The messages between the sync thread (filesystem-worker-events.ts) and the worker (filesystem-worker.ts).

/** A run: `now` is the sync thread's clock when it asked (the adapter reads it once, as the scan time). */
export type RunRequest = { type: 'run'; config: FilesystemConfig; now: string; window: number } & (
  { mode: 'full' } | { mode: 'changes'; since: FilesystemCheckpoint }
);

/** A call of the run's `StagedFiles` (AdapterContext.staged), which lives on the sync thread: the worker asks, the sync thread answers. */
export type StagedCall =
  | { method: 'list'; args: [nativeIds: readonly string[]] }
  | { method: 'count' | 'unlistedCount'; args: [] }
  | { method: 'unlisted'; args: [after: string | undefined, limit: number] };

/** Messages from the sync thread. */
export type ToWorker =
  | RunRequest
  /** One chunk was consumed. */
  | { type: 'credit' }
  | { type: 'staged-answer'; id: number; result?: unknown; error?: WireError };

/** Messages to the sync thread, in the order things happened. */
export type FromWorker =
  | { type: 'events'; events: WireEvent[] }
  | { type: 'log'; log: WireLog }
  | { type: 'end' }
  | { type: 'error'; error: ReturnType<typeof toWireError> }
  | ({ type: 'staged'; id: number } & StagedCall);
