import type { Cluster } from 'node:cluster';
import type { RequestListener, Server } from 'node:http';
import type { ConnectionLimits } from '../lib/limit-connections';

export interface ListenOptions extends ConnectionLimits {
  port: number;
  host: string;
  /** PEM certificate and key: serve HTTPS instead of HTTP. */
  tls?: { cert: Buffer; key: Buffer };
  /** Called with the server before it listens (to add listeners no connection may miss). */
  prepare?: (server: Server) => void;
}

/**
 * The process-level powers a command may use. `src/main.ts` provides the real ones (environment,
 * listening, signals); tests provide their own, so commands never touch `process` directly.
 */
export interface Runtime {
  env: Record<string, string | undefined>;
  /** Human-facing output (logs go through pino instead). */
  print(line: string): void;
  listen(handler: RequestListener, options: ListenOptions): Promise<Server>;
  /**
   * Registers work to run on SIGTERM/SIGINT before the process exits. `budgetMs` is how long the
   * work may take at most; the process is ended regardless a few seconds after the budgets run out.
   */
  onShutdown(handler: () => Promise<void>, budgetMs?: number): void;
  /** Sets the exit code the process ends with once the command returns. */
  setExitCode(code: number): void;
  /** Whether human output goes to a terminal (progress bars) or to a pipe (log lines). */
  interactive: boolean;
  /** node:cluster, where the command may start serving worker processes (`src/main.ts` gives it). */
  cluster?: Cluster;
  /** Registers work to run on SIGHUP (a rolling restart of the serving workers). */
  onReload?(handler: () => void): void;
}
