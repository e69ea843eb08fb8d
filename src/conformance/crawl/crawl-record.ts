/**
 * What a crawl recorded: per-file summaries (never bodies), identities, listings, probes, contract
 * violations and request statistics. Checks are pure functions over this record, and the JSON
 * report stores it, so `who-can-see --report` can answer later without crawling again.
 */

/** Which part of the crawl a request belongs to (latency is reported per kind). */
export type ExchangeKind = 'list-files' | 'get-file' | 'download' | 'permissions' | 'metadata' | 'users' | 'groups' | 'members' | 'probe';

/** An access entry or a group member, as served (values kept raw so checks can flag bad ones). */
export interface Principal {
  type: string;
  id: string;
  action?: string;
}

/** One paged listing (a collection followed through its `@odata.nextLink`s). */
export interface ListingSummary {
  /** `files`, `files?$top=7`, `users`, `groups`, `members:<group id>`, `permissions:<file id>`. */
  collection: string;
  firstUrl: string;
  pages: number;
  items: number;
  /** Largest page seen (to check that `$top` is a maximum). */
  maxPageItems: number;
  /** The `$top` the first request asked for, if any. */
  requestedTop?: number;
  /** Every `@odata.nextLink` as served (capped). */
  nextLinks: string[];
  /** Keys (`id`, or `TYPE id`) served more than once, with the page URL of the repeat. */
  duplicates: Array<{ key: string; url: string }>;
  /** A nextLink pointed back to a page already read. */
  loop?: { url: string };
  /** The listing stopped early: non-200, not JSON, or a malformed envelope. */
  failure?: { url: string; status: number; message: string };
}

export interface FileListing {
  id: string;
  /** Page on which the file was listed. */
  url: string;
  /** Top-level keys present on the list item, and keys of `content`. */
  keys: string[];
  contentKeys: string[];
  name?: unknown;
  externalUrl?: unknown;
  lastModified?: unknown;
  status?: unknown;
  mimeType?: unknown;
  downloadPath?: unknown;
  size?: unknown;
  sha1?: unknown;
  /** `content.body` was in the list item (length in characters). */
  listBodyLength?: number;
}

export interface FileDetail {
  url: string;
  status: number;
  id?: unknown;
  mimeType?: unknown;
  lastModified?: unknown;
  /** Length of a string `content.body`; absent when there is none. */
  bodyLength?: number;
  bodyType?: string;
}

export interface FileDownload {
  url: string;
  status: number;
  contentType?: string;
  contentLength?: string;
  checksumSha256?: string;
  /** Bytes actually received, and their hashes (computed as the body streamed past). */
  bytes: number;
  sha256?: string;
  sha1?: string;
  error?: string;
}

export interface FilePermissions {
  url: string;
  status: number;
  entries: Principal[];
  pages: number;
  error?: string;
}

/** Everything the crawl learned about one file. */
export interface FileSummary {
  listing: FileListing;
  detail?: FileDetail;
  download?: FileDownload;
  permissions?: FilePermissions;
}

export interface UserRecord {
  id: string;
  url: string;
  email?: unknown;
  fullName?: unknown;
  state?: unknown;
}

export interface GroupRecord {
  id: string;
  url: string;
  name?: unknown;
  members?: { url: string; status: number; entries: Principal[]; pages: number; error?: string };
}

/** A contract or error-envelope problem seen on one response. */
export interface ContractViolation {
  check: 'contract.responses' | 'contract.error-envelope';
  url: string;
  status: number;
  operation?: string;
  field?: string;
  message: string;
  /** Set when the run's profile tolerates the violation (it is reported as a warning). */
  severity?: 'warn';
}

export interface RateLimitSample {
  url: string;
  /** The header family used: `x-ratelimit`, `x-rate-limit` or `ratelimit`. */
  family: string;
  limit?: string;
  remaining?: string;
  reset?: string;
}

export interface TransportError {
  url: string;
  kind: ExchangeKind;
  message: string;
}

export interface LatencySummary {
  count: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  mean: number;
}

export interface CrawlStats {
  requests: number;
  bytes: number;
  durationMs: number;
  requestsPerSecond: number;
  bytesPerSecond: number;
  latencyMs: LatencySummary;
  latencyByKind: Partial<Record<ExchangeKind, LatencySummary>>;
  requestsByKind: Partial<Record<ExchangeKind, number>>;
  statusCounts: Record<string, number>;
  /** Requests retried after 429/503 + Retry-After. */
  retries: number;
  /** Time spent waiting for Retry-After or slowing down on low X-RateLimit-Remaining. */
  pacedMs: number;
  slowdowns: number;
  maxInFlight: number;
}

/** One request the harness made on purpose to see how the gateway copes. */
export interface ProbeResult {
  /** The check this probe feeds (e.g. `robustness.unknown-id`). */
  check: string;
  description: string;
  url: string;
  /** 0 when there was no HTTP answer. */
  status: number;
  /** The body was `{"error": {"code", "message"}}`. */
  envelope: boolean;
  code?: string;
  /**
   * A good answer: any 4xx, exactly 401 AUTHENTICATION_FAILED, 200, or anything but a 5xx. A 5xx,
   * a 4xx without the envelope, or a leaked file always fails.
   */
  expect: '4xx' | '401' | '200' | '2xx-or-4xx';
  /** How bad any other answer is. */
  otherwise: 'fail' | 'warn';
  /** For a 2xx list answer: how many items came back. */
  items?: number;
  /** The body looked like a system file (`/etc/passwd`, `win.ini`). */
  leaked?: boolean;
  error?: string;
  /** For a files page the probe followed through its nextLinks. */
  chain?: ProbeChain;
}

/** A listing a probe followed to its end: pages read, distinct ids, the crawl's files it never listed. */
export interface ProbeChain {
  pages: number;
  listed: number;
  missing: number;
  firstMissing?: string;
  /** A link that led back to a page already read: following the links never ends. */
  loop?: string;
  /** Why following stopped early (an error page, too many pages). */
  failure?: string;
}

/** A listing of `/v1/files` repeated later (second crawl, odd `$top`): ids and timestamps only. */
export interface FilesPass {
  listing: ListingSummary;
  /** [id, last_modified_datetime as served], in listing order (pairs, not an object: ids are gateway data). */
  files: Array<[string, string | null]>;
  startedAt: string;
  finishedAt: string;
}

export interface IdsPass {
  listing: ListingSummary;
  ids: string[];
}

export interface CrawlRecord {
  baseUrl: string;
  startedAt: string;
  finishedAt: string;
  metadata?: { url: string; status: number; model?: unknown; error?: string };
  files: FileSummary[];
  users: UserRecord[];
  groups: GroupRecord[];
  /** The top-level listings plus any member/permission listing that paged or went wrong. */
  listings: ListingSummary[];
}

/** Everything a conformance run recorded; the input of every check. */
export interface RecordedRun {
  crawl: CrawlRecord;
  /** The same listings again, after the first crawl (consecutive crawls must agree). */
  second?: { files: FilesPass; users: IdsPass; groups: IdsPass };
  /** `/v1/files` listed with an odd `$top`. */
  oddTop?: FilesPass;
  probes: ProbeResult[];
  violations: ContractViolation[];
  /** Violations beyond the stored cap, by check. */
  violationsDropped: number;
  rateLimits: RateLimitSample[];
  /** 429 or 503 responses that carried no usable Retry-After. */
  missingRetryAfter: Array<{ url: string; status: number }>;
  transportErrors: TransportError[];
  stats: CrawlStats;
}
