/**
 * What the webhook receiver asks for when a source says it changed: an incremental sync of it.
 * The in-process default is `CoalescingSyncRequester` (src/sync). A job queue can back the same
 * interface (enqueue a job keyed by the source, with a singleton key so duplicates collapse)
 * without the receiving side changing.
 */
export interface SyncRequester {
  /** Asks for an incremental run of `source`; returns at once (the run happens later). */
  request(source: string): void;
}
