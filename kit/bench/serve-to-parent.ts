/**
 * The child side of the memory benchmarks' IPC protocol (`download-rss`, `gateway-memory`): argv[2]
 * is the JSON config; once `start` listens the child sends `{ type: 'ready', url }`, answers
 * `{ type: 'stop' }` with `{ type: 'report', report }` and exits when the parent disconnects.
 */
export interface ServedToParent<Report> {
  url: string;
  close(): Promise<void>;
  /** Called on `stop`: ends the sampling and says what it measured. */
  report(): Report;
}

export function serveToParent<Config, Report>(start: (config: Config) => Promise<ServedToParent<Report>>): void {
  start(JSON.parse(process.argv[2] ?? '{}') as Config)
    .then(({ url, close, report }) => {
      process.on('message', (message: { type?: string }) => {
        if (message.type !== 'stop') return;
        process.send?.({ type: 'report', report: report() });
      });
      process.on('disconnect', () => {
        void close().finally(() => process.exit(0));
      });
      process.send?.({ type: 'ready', url });
    })
    .catch((error: unknown) => {
      console.error(error);
      process.exit(1);
    });
}
