/**
 * The in-process `SyncRequester` (http/webhooks/sync-requester.ts): runs the incremental sync
 * here, coalescing: requests that arrive while a run is going become one more run after it.
 */
export class CoalescingSyncRequester {
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();

  /** `run` performs one incremental sync of a source; `onError` hears of a failed one. */
  constructor(
    private readonly run: (source: string) => Promise<unknown>,
    private readonly onError: (source: string, error: unknown) => void,
  ) {}

  request(source: string): void {
    if (this.running.has(source)) {
      this.again.add(source);
      return;
    }
    const loop = (async () => {
      do {
        this.again.delete(source);
        try {
          await this.run(source);
        } catch (error) {
          this.onError(source, error);
        }
      } while (this.again.has(source));
    })().finally(() => this.running.delete(source));
    this.running.set(source, loop);
  }

  /** Resolves when no run is going nor asked for. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running.values()]);
  }
}
