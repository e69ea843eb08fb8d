/** The longest delay a Node timer honours: beyond it, setTimeout fires after 1 ms instead. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/**
 * `15m`, `1h`, `90s` → milliseconds. Errors name `option`; `maxMs` defaults to what a timer can
 * wait (for `--every`).
 */
export function parseInterval(text: string, { option = '--every', maxMs = MAX_TIMER_MS }: { option?: string; maxMs?: number } = {}): number {
  const m = /^(\d+)\s*(s|m|h)$/.exec(text.trim());
  if (!m || Number(m[1]) <= 0) throw new Error(`${option} takes a duration such as 90s, 15m or 1h; got '${text}'`);
  const ms = Number(m[1]) * { s: 1000, m: 60_000, h: 3_600_000 }[m[2] as 's' | 'm' | 'h'];
  if (ms > maxMs) throw new Error(`${option} takes at most ${Math.floor(maxMs / 3_600_000)}h; got '${text}'`);
  return ms;
}
