import type { CursorFormat } from './rest-manifest';
import { RestRecordError } from './rest-records';

const DURATION = /^P(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+(?:\.\d+)?)S)?)?$/;

/** A look-back window in milliseconds: seconds, or an ISO 8601 duration of days, hours, minutes and seconds (P1D, PT10M, PT1H30M). */
export function lookBackMs(value: string | number | undefined): number {
  if (value === undefined) return 0;
  if (typeof value === 'number') return value * 1000;
  const m = DURATION.exec(value);
  if (!m || value === 'P' || value.endsWith('T'))
    throw new RestRecordError(`incremental_sync.look_back: ${JSON.stringify(value)} is not an ISO 8601 duration (PT10M) or seconds`);
  const [, d = '0', h = '0', min = '0', s = '0'] = m;
  return ((Number(d) * 24 + Number(h)) * 60 + Number(min)) * 60_000 + Number(s) * 1000;
}

/** A record's cursor value as milliseconds since the epoch; throws when it is not a time in the manifest's format. */
export function cursorMs(value: string | undefined, format: CursorFormat = 'iso'): number {
  const ms = value === undefined || value === '' ? NaN : format === 'iso' ? Date.parse(value) : Number(value) * (format === 'epoch_seconds' ? 1000 : 1);
  if (!Number.isFinite(ms)) throw new RestRecordError(`incremental_sync.cursor: a record's cursor is not a time in format ${format}`);
  return ms;
}

/** A lower bound as the API takes it, in the cursor's format. */
export function formatCursor(ms: number, format: CursorFormat = 'iso'): string {
  if (format === 'epoch_seconds') return String(Math.floor(ms / 1000));
  if (format === 'epoch_millis') return String(ms);
  return new Date(ms).toISOString();
}
