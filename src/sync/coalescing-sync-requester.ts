import { SyncLockedError } from '../staging/repositories/sync-lock';

export interface CoalescingOptions {
  /** How long to wait before trying again when the source's sync lock is held elsewhere (default 60 s). */
  busyRetryMs?: number;
  /** Hears of a run put off because another holds the source's lock (not an error). */
  onBusy?: (source: string, error: SyncLockedError) => void;
}

/**
 * The in-process `SyncRequester` (http/webhooks/sync-requester.ts): runs the incremental sync
 * here, coalescing: requests that arrive while a run is going become one more run after it. A run
 * refused because the source is being synced elsewhere (its sync lock is held: a `sync`, a
 * `sync-worker`, another serving process) is not an error: it is tried again `busyRetryMs` later,
 * and requests arriving meanwhile join that one later run.
 */
export class CoalescingSyncRequester {
  private readonly running = new Map<string, Promise<void>>();
  private readonly again = new Set<string>();
  /** The waits before a retry, each ended early by `stop`. */
  private readonly waits = new Set<() => void>();
  private stopped = false;

  /** `run` performs one incremental sync of a source; `onError` hears of a failed one. */
  constructor(
    private readonly run: (source: string) => Promise<unknown>,
    private readonly onError: (source: string, error: unknown) => void,
    private readonly options: CoalescingOptions = {},
  ) {}

  request(source: string): void {
    if (this.stopped) return;
    if (this.running.has(source)) {
      this.again.add(source);
      return;
    }
    const loop = this.runWhileAsked(source).finally(() => this.running.delete(source));
    this.running.set(source, loop);
  }

  private async runWhileAsked(source: string): Promise<void> {
    do {
      this.again.delete(source);
      try {
        await this.run(source);
      } catch (error) {
        if (!(error instanceof SyncLockedError)) this.onError(source, error);
        else await this.later(source, error);
      }
    } while (this.again.has(source) && !this.stopped);
  }

  /** The lock is held elsewhere: one more run, after a wait (not keeping the process alive). */
  private async later(source: string, error: SyncLockedError): Promise<void> {
    if (this.stopped) return;
    this.options.onBusy?.(source, error);
    this.again.add(source);
    await new Promise<void>((resolve) => {
      const wake = (): void => {
        clearTimeout(timer);
        this.waits.delete(wake);
        resolve();
      };
      const timer = setTimeout(wake, this.options.busyRetryMs ?? 60_000).unref();
      this.waits.add(wake);
    });
  }

  /** Takes no more requests, drops the runs asked for and not started, and ends the waits. */
  stop(): void {
    this.stopped = true;
    this.again.clear();
    for (const wake of [...this.waits]) wake();
  }

  /** Resolves when no run is going nor asked for. */
  async idle(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running.values()]);
  }
}
