import type http from 'node:http';

/** The server options each request handler asked for (see `serverOptionsOf`). */
const OPTIONS = new WeakMap<http.RequestListener, http.ServerOptions>();

/** Records the options a server made for `handler` should be created with. */
export function setServerOptions(handler: http.RequestListener, options: http.ServerOptions): void {
  OPTIONS.set(handler, options);
}

/**
 * The options `handler` asks its server to be created with (the gateway's: `requireHostHeader:
 * false`, so that its own middleware answers a missing `Host` in its envelope), or none. A server
 * made without them still works; it answers such requests Node's own way.
 */
export function serverOptionsOf(handler: http.RequestListener): http.ServerOptions {
  return OPTIONS.get(handler) ?? {};
}
