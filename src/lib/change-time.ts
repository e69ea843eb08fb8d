/**
 * A timestamp for a change: `at`, or just after the stored one if the clock has not moved past
 * it, so a served `last_modified_datetime` strictly increases whenever what is served changes.
 */
export function changeTime(at: string, previous: string | null | undefined): string {
  if (!previous || at > previous) return at;
  return new Date(Date.parse(previous) + 1).toISOString();
}
