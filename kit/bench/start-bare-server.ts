import type http from 'node:http';
import { listenOnLoopback, type LoopbackServer } from 'content-gateway/lib';

export type BareServer = LoopbackServer;

/** A bare node:http server on 127.0.0.1:<free port>: the baseline a gateway figure is divided by. */
export function startBareServer(handler: http.RequestListener): Promise<BareServer> {
  return listenOnLoopback(handler);
}
