import { ConcurrencyPool } from '../../lib/concurrency-pool';
import type { SyncEvent } from '../adapter';
import type { AccessDeps } from './rest-access';
import { cursorMs, formatCursor, lookBackMs } from './rest-cursor';
import { documentPages, recordEvents } from './rest-document-walk';
import type { DocumentsStream, UpdatedSinceSync } from './rest-manifest';
import { optionalText } from './rest-records';

/** The highest cursor a run read, and the lowest of the records that failed (read again next run). */
export interface CursorMark {
  highest: number | undefined;
  lowestFailed: number | undefined;
}

/** The documents listing with the lower bound as a query parameter: the last cursor minus the look-back window. */
function withLowerBound(stream: DocumentsStream, sync: UpdatedSinceSync, since: number): DocumentsStream {
  const value = formatCursor(since - lookBackMs(sync.look_back), sync.cursor_format);
  const text = sync.lower_bound.template ? sync.lower_bound.template.replace(/\{cursor\}/g, value) : value;
  const requester = { ...stream.requester, request_parameters: { ...stream.requester.request_parameters, [sync.lower_bound.parameter]: text } };
  return { ...stream, requester };
}

/** The next run's cursor: the highest read (never below the last), but no later than a record that failed. */
export function nextCursor(previous: number | null | undefined, mark: CursorMark): number | null {
  const highest = Math.max(previous ?? -Infinity, mark.highest ?? -Infinity);
  const next = mark.lowestFailed === undefined ? highest : Math.min(highest, mark.lowestFailed);
  return Number.isFinite(next) ? next : null;
}

/**
 * Documents updated since `since` (all of them when undefined: a full run), page by page (a failed
 * page fails the run), each with its access, body and children. A record the tombstone expression
 * says is deleted, or the filter now leaves out, is a delete event in an incremental run (a full
 * run leaves it out: the sweep removes it). `mark` gathers the cursors read.
 */
export async function* updatedSinceEvents(
  stream: DocumentsStream,
  sync: UpdatedSinceSync,
  deps: AccessDeps,
  concurrency: number,
  since: number | null | undefined,
  mark: CursorMark,
): AsyncGenerator<SyncEvent> {
  const incremental = since !== undefined && since !== null;
  const listing = incremental ? withLowerBound(stream, sync, since) : stream;
  const seen = new Set<string>();
  const pool = new ConcurrencyPool(concurrency);
  for await (const page of documentPages(listing, deps)) {
    const kept: Array<{ record: unknown; cursor: number }> = [];
    for (const record of page.records) {
      const id = await optionalText(deps.expressions, stream.map.id, record).catch(() => undefined);
      if (id !== undefined && seen.has(id)) continue;
      if (id !== undefined) seen.add(id);
      let cursor: number;
      try {
        cursor = cursorMs(await optionalText(deps.expressions, sync.cursor, record), sync.cursor_format);
      } catch (error) {
        yield { type: 'failure', kind: 'file', ...(id ? { nativeId: id } : {}), error: error as Error };
        continue;
      }
      mark.highest = Math.max(mark.highest ?? -Infinity, cursor);
      const gone = sync.tombstone !== undefined && (await deps.expressions.truth(sync.tombstone, record));
      const left = stream.filter !== undefined && !(await deps.expressions.truth(stream.filter, record));
      if (gone || left) {
        if (incremental && id !== undefined) yield { type: 'delete', kind: 'file', nativeId: id };
        continue;
      }
      kept.push({ record, cursor });
    }
    const read = kept.map(({ record, cursor }) => ({ cursor, events: pool.run(() => recordEvents(stream, record, deps)) }));
    for (const { cursor, events } of read) {
      const out = await events;
      if (out.some((e) => e.type === 'failure')) mark.lowestFailed = Math.min(mark.lowestFailed ?? Infinity, cursor);
      yield* out;
    }
  }
}
