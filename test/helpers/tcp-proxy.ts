import net from 'node:net';

/**
 * A TCP forwarder on a loopback port to `target`, which a test can cut (every connection
 * dropped, the port closed: new connections are refused) and restore (the same port again):
 * a network outage between the gateway and a service, without touching the service itself.
 *
 * It can also freeze: every connection, and every new one, stays open but no byte passes either
 * way until `thaw` (a server that has stopped answering, as a `SIGSTOP`ped Postgres does, or a
 * network that black-holes packets); and drop the connections it holds while still listening,
 * with a reset (`RST`: the peer reads `ECONNRESET`) or an orderly close (`FIN`: the peer reads the
 * end of the stream), as a server that crashes mid-query does.
 */
export interface TcpProxy {
  port: number;
  cut(): Promise<void>;
  restore(): Promise<void>;
  /** Stops forwarding bytes, keeping every connection open (and accepting new ones, which wait too). */
  freeze(): void;
  /** Forwards again, what waited first. */
  thaw(): void;
  /** Ends every connection it holds now: `reset` with RST, `close` with FIN. The port keeps listening. */
  drop(how: 'reset' | 'close'): void;
  /** Connections (client and upstream pairs) open now. */
  connections(): number;
  close(): Promise<void>;
}

interface Link {
  client: net.Socket;
  upstream: net.Socket;
  /** Being closed with FIN: the client side outlives the upstream one for a moment. */
  closing?: boolean;
}

/** Bytes from `from` to `to`, with back-pressure; nothing while `frozen()`. */
function pass(from: net.Socket, to: net.Socket, frozen: () => boolean): void {
  from.on('data', (chunk: Buffer) => {
    if (!to.write(chunk)) from.pause();
  });
  to.on('drain', () => {
    if (!frozen()) from.resume();
  });
  from.once('end', () => to.end());
}

/** Ends `socket` with FIN: whatever it still receives is read and dropped, so closing it sends no RST. */
function closeOrderly(socket: net.Socket): void {
  socket.removeAllListeners('data');
  socket.on('data', () => undefined);
  socket.resume();
  socket.end();
  setTimeout(() => socket.destroy(), 2_000).unref();
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const links = new Set<Link>();
  let frozen = false;
  const isFrozen = (): boolean => frozen;
  const forward = (client: net.Socket): void => {
    const upstream = net.connect(target.port, target.host);
    const link: Link = { client, upstream };
    links.add(link);
    for (const socket of [client, upstream]) {
      socket.on('error', () => socket.destroy());
      socket.once('close', () => {
        links.delete(link);
        if (link.closing) return;
        client.destroy();
        upstream.destroy();
      });
    }
    pass(client, upstream, isFrozen);
    pass(upstream, client, isFrozen);
    if (frozen) {
      client.pause();
      upstream.pause();
    }
  };
  let server = net.createServer(forward);
  const listen = (port: number): Promise<number> =>
    new Promise((resolve, reject) => {
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port));
    });
  const stop = (): Promise<void> =>
    new Promise((resolve) => {
      for (const { client, upstream } of links) {
        client.destroy();
        upstream.destroy();
      }
      if (!server.listening) return resolve();
      server.close(() => resolve());
    });
  const port = await listen(0);
  return {
    port,
    cut: stop,
    restore: async () => {
      server = net.createServer(forward);
      await listen(port);
    },
    freeze: () => {
      frozen = true;
      for (const { client, upstream } of links) {
        client.pause();
        upstream.pause();
      }
    },
    thaw: () => {
      frozen = false;
      for (const { client, upstream } of links) {
        client.resume();
        upstream.resume();
      }
    },
    drop: (how) => {
      for (const link of [...links]) {
        links.delete(link);
        if (how === 'reset') {
          link.client.resetAndDestroy();
          link.upstream.resetAndDestroy();
        } else {
          link.closing = true;
          link.upstream.destroy();
          closeOrderly(link.client);
        }
      }
    },
    connections: () => links.size,
    close: () => {
      frozen = false;
      return stop();
    },
  };
}
