export { ConcurrencyPool } from './concurrency-pool';
export { drainableServer } from './drain-server';
export { escapeHtml } from './escape-html';
export { NextLinkError, followNextLinks } from './follow-next-links';
export { listenOnLoopback } from './listen-on-loopback';
export type { LoopbackServer } from './listen-on-loopback';
export { normalizeEmail } from './normalize-email';
export { parseRetryAfter } from './parse-retry-after';
export { spawnModuleWorker } from './spawn-module-worker';
