/**
 * Lifecycle changes with dates on the simulator's clock (seed: Versioning): an experimental
 * endpoint "may change or be deprecated with at least 14 days notice", a deprecated one is
 * "scheduled for removal". A change is announced at a time and applies at its date; until then the
 * endpoint answers with the notice (`Sunset` for a removal, RFC 8594; `X-Api-Change-Notice` for
 * any change, naming the stage and the date), and from the date on it is in its new stage (a
 * removed endpoint answers 410).
 */
import { ApiError } from './api-error';
import { EXPERIMENTAL_NOTICE_DAYS, LIFECYCLE_TABLE, type LifecycleRow, type Stage } from './lifecycle-table';

const DAY_MS = 86_400_000;

export interface ScheduledChange {
  /** The lifecycle row changed. */
  row: string;
  /** Its stage from `at` on. */
  stage: Stage;
  /** When it was announced, and when it applies (ISO dates on the simulator's clock). */
  announcedAt: string;
  at: string;
}

/** The change to schedule, checked against the notice the seed promises; throws a 400 otherwise. */
export function scheduleChange(input: unknown, now: number): ScheduledChange {
  const o = typeof input === 'object' && input !== null ? (input as Record<string, unknown>) : {};
  const row = LIFECYCLE_TABLE.find((r) => r.id === o.row);
  if (!row) throw new ApiError('bad-request', `row is one of the lifecycle table's ids (GET /_admin/lifecycle)`);
  const stages: readonly Stage[] = ['stable', 'legacy', 'deprecated', 'experimental', 'removed'];
  if (!stages.includes(o.stage as Stage)) throw new ApiError('bad-request', `stage is one of ${stages.join(', ')}`);
  const at = typeof o.at === 'string' ? Date.parse(o.at) : NaN;
  if (!Number.isFinite(at) || at <= now) throw new ApiError('bad-request', 'at is an ISO date after the simulator clock');
  if (row.stage === 'experimental' && at - now < EXPERIMENTAL_NOTICE_DAYS * DAY_MS)
    throw new ApiError('bad-request', `an experimental endpoint changes with at least ${EXPERIMENTAL_NOTICE_DAYS} days notice`);
  return { row: row.id, stage: o.stage as Stage, announcedAt: new Date(now).toISOString(), at: new Date(at).toISOString() };
}

/** The changes of `row` that have applied by `now`: the last one's stage is the row's stage. */
export function scheduledStage(row: LifecycleRow, schedule: readonly ScheduledChange[], now: number): Stage | undefined {
  const applied = schedule.filter((c) => c.row === row.id && Date.parse(c.at) <= now).sort((a, b) => Date.parse(a.at) - Date.parse(b.at));
  return applied.at(-1)?.stage;
}

/** The next change announced for `row` and not yet applied. */
export function pendingChange(row: LifecycleRow, schedule: readonly ScheduledChange[], now: number): ScheduledChange | undefined {
  return schedule.filter((c) => c.row === row.id && Date.parse(c.at) > now).sort((a, b) => Date.parse(a.at) - Date.parse(b.at))[0];
}

/** The notice headers of a pending change: `X-Api-Change-Notice: <stage>; date=<ISO>`, and `Sunset: <HTTP date>` for a removal. */
export function noticeHeaders(change: ScheduledChange): Record<string, string> {
  const headers: Record<string, string> = { 'x-api-change-notice': `${change.stage}; date=${change.at}` };
  if (change.stage === 'removed') headers.sunset = new Date(change.at).toUTCString();
  return headers;
}
