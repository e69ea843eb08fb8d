import http from 'node:http';
import type { Express } from 'express';
import { setServerOptions } from '../lib/server-options-of';

/** Copies every own property (methods, getters, `app`) of each source onto `target`, later sources winning. */
function copyOwnProperties(target: object, ...sources: object[]): void {
  for (const source of sources) {
    for (const key of Reflect.ownKeys(source)) {
      if (key === 'constructor') continue;
      Object.defineProperty(target, key, Object.getOwnPropertyDescriptor(source, key) as PropertyDescriptor);
    }
  }
}

/**
 * Request and response classes that already have Express's prototypes, attached to `app` for
 * the server that will serve it (`serverOptionsOf`, used by `listenOnLoopback` and `serve`).
 *
 * Express re-parents every request and response Node has built with `Object.setPrototypeOf`
 * onto `app.request` / `app.response`. V8 then gives both objects slow (dictionary) maps, and
 * every later property access on them, in Node's own HTTP code too, misses its inline caches:
 * about 40 of the ~65 µs of CPU a bare Express answer costs here (`kit/bench/profile-request.ts`).
 * Built by these classes, whose prototypes carry Express's methods and getters (and `app`),
 * each object already has the prototype Express sets, and setting the same prototype again
 * changes nothing. Behaviour is Express's own; a server made without the classes (supertest)
 * still works through Express's re-parenting.
 *
 * Must run before anything else defines properties on `app.request` or `app.response`.
 */
export function useRequestClasses(app: Express): void {
  class GatewayRequest extends http.IncomingMessage {}
  class GatewayResponse<Request extends http.IncomingMessage = http.IncomingMessage> extends http.ServerResponse<Request> {}
  copyOwnProperties(GatewayRequest.prototype, Object.getPrototypeOf(app.request) as object, app.request);
  copyOwnProperties(GatewayResponse.prototype, Object.getPrototypeOf(app.response) as object, app.response);
  app.request = GatewayRequest.prototype as unknown as Express['request'];
  app.response = GatewayResponse.prototype as unknown as Express['response'];
  setServerOptions(app, { IncomingMessage: GatewayRequest, ServerResponse: GatewayResponse });
}
