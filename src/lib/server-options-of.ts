import type http from 'node:http';

/** Where a request handler keeps the server options it wants (see `serverOptionsOf`). */
const SERVER_OPTIONS = Symbol.for('content-gateway.serverOptions');

type Handler = http.RequestListener & { [SERVER_OPTIONS]?: http.ServerOptions };

/** Attaches to `handler` the options a server made for it should be created with. */
export function setServerOptions(handler: http.RequestListener, options: http.ServerOptions): void {
  (handler as Handler)[SERVER_OPTIONS] = options;
}

/**
 * The options `handler` asks its server to be created with (its own request and response
 * classes, see `src/http/request-classes.ts`), or none. A server made without them still works;
 * it only serves slower.
 */
export function serverOptionsOf(handler: http.RequestListener): http.ServerOptions {
  return (handler as Handler)[SERVER_OPTIONS] ?? {};
}
