import type { RequestListener, Server } from 'node:http';

/** Where a kit command listens; the limits keep a mock's sockets from living forever. */
export interface KitListenOptions {
  port: number;
  host: string;
  headersTimeoutMs: number;
  requestTimeoutMs: number;
  keepAliveTimeoutMs: number;
}

/**
 * The process-level powers a kit command may use. `kit/src/main.ts` provides the real ones; tests
 * provide their own, so commands never touch `process` directly (as in the product's CLI).
 */
export interface KitRuntime {
  env: Record<string, string | undefined>;
  /** Human-facing output. */
  print(line: string): void;
  listen(handler: RequestListener, options: KitListenOptions): Promise<Server>;
  /** Registers work to run on SIGTERM/SIGINT; `budgetMs` is how long it may take at most. */
  onShutdown(handler: () => Promise<void>, budgetMs?: number): void;
  setExitCode(code: number): void;
}
