/**
 * An interval (`15m`, `1h`, `24h`, as `parseInterval` reads them) as the cron expression the
 * queue's schedules take (UTC, whole minutes: the queue's clock ticks once a minute). Only
 * intervals that divide an hour or a day evenly have one; any other is refused, naming `option`.
 */
export function intervalCron(ms: number, option: string): string {
  const minutes = ms / 60_000;
  const hours = minutes / 60;
  if (Number.isInteger(minutes) && minutes < 60 && 60 % minutes === 0) return minutes === 1 ? '* * * * *' : `*/${minutes} * * * *`;
  if (Number.isInteger(hours) && hours < 24 && 24 % hours === 0) return hours === 1 ? '0 * * * *' : `0 */${hours} * * *`;
  if (hours === 24) return '0 0 * * *';
  throw new Error(`with Postgres, ${option} takes an interval that divides an hour or a day evenly (1m, 5m, 15m, 30m, 1h, 6h, 24h); got ${minutes} minutes`);
}
