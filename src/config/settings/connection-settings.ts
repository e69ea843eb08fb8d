import { z } from 'zod';
import { setting } from './setting-spec';

/** Connection limits and time limits that protect the server from slow or greedy clients. */
export const connectionSettings = {
  headersTimeoutMs: setting({
    env: 'HEADERS_TIMEOUT_MS',
    schema: z.coerce.number().int().min(1000),
    default: '10000',
    description: 'A client must send its request headers within this time (slow-loris protection).',
  }),
  requestTimeoutMs: setting({
    env: 'REQUEST_TIMEOUT_MS',
    schema: z.coerce.number().int().min(1000),
    default: '120000',
    description:
      'A client must send its whole request (headers and any body) within this time. It does not bound the answer: see `STALL_TIMEOUT_MS` and `RESPONSE_TIMEOUT_MS`.',
  }),
  keepAliveTimeoutMs: setting({
    env: 'KEEP_ALIVE_TIMEOUT_MS',
    schema: z.coerce.number().int().min(1000),
    default: '65000',
    description: "Idle keep-alive connections are closed after this time (keep it above your load balancer's idle timeout).",
  }),
  stallTimeoutMs: setting({
    env: 'STALL_TIMEOUT_MS',
    schema: z.coerce.number().int().min(1000),
    default: '60000',
    description:
      "A connection with a request in progress on which no byte moves for this long (a client that stopped reading its download, an answer that does not come) is closed, which frees its `MAX_CONCURRENT_REQUESTS` slot; a download that stalls midway goes within twice this time (Node spares a write that moved at all since its last look). Idle keep-alive connections are `KEEP_ALIVE_TIMEOUT_MS`'s business.",
  }),
  responseTimeoutMs: setting({
    env: 'RESPONSE_TIMEOUT_MS',
    schema: z.coerce.number().int().min(1000),
    default: '900000',
    description:
      'A `/v1` answer, a download included, must be sent whole within this time of being admitted; otherwise its connection is cut and its slot freed (a client that reads, but too slowly to ever finish). The default, 15 minutes, carries a 100 MB file over a 1 Mbit/s link (about 14 minutes); the platform indexes files up to 25 MB.',
  }),
  clientConcurrencyShare: setting({
    env: 'CLIENT_CONCURRENCY_SHARE',
    schema: z.coerce.number().gt(0).max(1),
    default: '0.75',
    description:
      "Share of `MAX_CONCURRENT_REQUESTS` (of each worker's part of it) one client may hold at once: at least one request, and one fewer than the cap, so another client always gets in; beyond it, that client is answered 503 with `Retry-After` while others are served. A client is an address: the socket's, or the forwarded one that `TRUST_PROXY` trusts (behind a proxy that is not trusted, every request is the proxy's). `1`: no share.",
  }),
  maxConnections: setting({
    env: 'MAX_CONNECTIONS',
    schema: z.coerce.number().int().min(0),
    default: '1000',
    description:
      'Open connections (idle keep-alive ones included) above which a new connection is closed at once, unanswered, and a warning logged (at most once a minute); divided between `WEB_CONCURRENCY` workers. `0`: no cap.',
  }),
  shutdownGraceMs: setting({
    env: 'SHUTDOWN_GRACE_MS',
    schema: z.coerce.number().int().min(0),
    default: '10000',
    description: "On SIGTERM, requests in flight get this long to finish before their connections are cut (keep it below your orchestrator's stop timeout).",
  }),
  maxUrlLength: setting({
    env: 'MAX_URL_LENGTH',
    // The gateway's own longest link must pass: `/v1/files/{id}/permissions` with a 1,024-character
    // id, `$top` and a 4,096-character `$skiptoken` is under 5,200 (test/unit/load-config.test.ts).
    schema: z.coerce.number().int().min(6144),
    default: '8192',
    description:
      "Longer request URLs (path and query) are refused with 414. At least 6144, so that every link the gateway sends (an id of up to 1,024 characters, a `$skiptoken` of up to 4,096) passes. (A request line and headers over 16 KB together are refused by Node's parser first, with 431.)",
  }),
} as const;
