/**
 * A REST source manifest (version 1) as TypeScript sees it once `manifest.schema.json` accepted it.
 * The schema is the published contract; these types follow it field for field. Expressions are
 * JSONata (strings); `Text` values may hold `${env:NAME}` references, `Secret` values must.
 */

export type EnvRef = { env: string };
export type Text = string | number | boolean | EnvRef;
export type Secret = string | EnvRef;
export type TextMap = Record<string, Text>;
export type Expression = string;

export interface Inject {
  in: 'header' | 'query';
  name: string;
  prefix?: string;
}

export interface Login {
  path: string;
  http_method?: 'GET' | 'POST';
  request_body?: TextMap;
  request_headers?: TextMap;
  token_path: string;
  expires_in_path?: string;
  inject?: Inject;
}

export interface Authenticator {
  type: 'none' | 'api_key' | 'bearer' | 'basic' | 'session' | 'oauth2_client_credentials' | 'oauth2_refresh_token' | 'hook';
  /** `hook`: the module (inside the manifest's folder) and the export naming a RestAuthenticatorHookFactory. */
  module?: string;
  export?: string;
  api_key?: Secret;
  inject?: Inject;
  token?: Secret;
  username?: Text;
  password?: Secret;
  login?: Login;
  token_url?: Text;
  client_id?: Text;
  client_secret?: Secret;
  refresh_token?: Secret;
  scope?: string;
}

/** `full_run`: the answer means the incremental position is no longer valid (an expired feed token); the engine runs a full sync instead. */
export type FilterAction = 'retry' | 'fail' | 'ignore' | 'full_run';

export interface ResponseFilter {
  http_codes?: number[];
  predicate?: Expression;
  action: FilterAction;
  error_message?: string;
}

export interface ErrorHandler {
  max_retries?: number;
  response_filters?: ResponseFilter[];
}

export interface RateLimit {
  respect_headers?: boolean;
  min_remaining?: number;
  max_wait_ms?: number;
  budget?: { requests: number; per_seconds: number };
}

/** `requester.batch`: how reads marked `batch: true` are sent together (see RestBatcher). */
export interface BatchSpec {
  path: string;
  max_actions: number;
  /** Over `{method, path, query, relative_path}`: one action of the call's body. */
  action: Expression;
  /** Over `{actions}`: the call's JSON body. */
  body: Expression;
  /** Where the results are in the call's answer, in the order of the actions. */
  results: string;
  /** Over one result: its HTTP status. */
  status: Expression;
  /** Over one result: its body. */
  result_body: Expression;
}

export interface BaseRequester {
  url_base: Text;
  batch?: BatchSpec;
  rate_limit?: RateLimit;
  request_headers?: TextMap;
  request_parameters?: TextMap;
  authenticator?: Authenticator;
  error_handler?: ErrorHandler;
  timeout_ms?: number;
}

export interface Requester {
  path: string;
  http_method?: 'GET' | 'POST';
  request_parameters?: TextMap;
  request_headers?: TextMap;
  request_body?: Record<string, unknown>;
  error_handler?: ErrorHandler;
  /** Sent inside `requester.batch` calls, gathered with the reads pending at once (GET only). */
  batch?: boolean;
}

export interface Paginator {
  type: 'none' | 'offset' | 'page_number' | 'cursor' | 'next_url' | 'link_header' | 'header_cursor' | 'hook';
  /** `hook`: the module (inside the manifest's folder) and the export naming a RestPaginatorHook. */
  module?: string;
  export?: string;
  page_size?: number;
  limit_param?: string;
  offset_param?: string;
  page_param?: string;
  start_from?: number;
  cursor_path?: string;
  cursor_param?: string;
  next_url_path?: string;
  header?: string;
  stop?: { empty_page?: boolean; total_path?: string; has_more_path?: string };
}

/** What every listing has: a request, how it pages, where the records are in a page. */
export interface Listing {
  requester: Requester;
  paginator?: Paginator;
  record_selector?: string;
  filter?: Expression;
}

export interface PrincipalMap {
  type: Expression;
  id: Expression;
}

export interface PrincipalListing extends Listing {
  map: PrincipalMap;
}

export interface FieldPrincipals {
  path: Expression;
  map: PrincipalMap;
}

export interface AccessSpec {
  public?: Expression;
  field?: FieldPrincipals;
  request?: PrincipalListing;
  inherit?: Expression;
  /** Children only: the parent document's access (the union with the rest). */
  parent?: boolean;
}

export interface UsersStream extends Listing {
  map: { id: Expression; email: Expression; name?: Expression; active?: Expression };
}

export interface GroupsStream extends Listing {
  map: { id: Expression; name?: Expression };
  members?: { field?: FieldPrincipals; request?: PrincipalListing; requests?: PrincipalListing[] };
}

export interface ContainersStream extends Listing {
  map: { id: Expression; name?: Expression };
  access: AccessSpec;
}

export interface DocumentMap {
  id: Expression;
  name: Expression;
  url: Expression;
  mime_type?: Expression;
  created_at?: Expression;
  created_by?: Expression;
  modified_by?: Expression;
  parent?: Expression;
  metadata?: Expression;
}

/** Airbyte's substream partition router: the listing is requested once per record of `parent` (`{record.x}` in its path is that record's). */
export interface PartitionRouter {
  type: 'substream';
  parent: Listing;
}

/** Documents listed per parent document (attachments of a task): same fields; `access.parent` gives the parent's access. */
export type ChildDocumentsStream = Omit<DocumentsStream, 'partition_router' | 'children' | 'incremental_sync'>;

/** Incremental runs: a document whose listed version is unchanged is not read again, nor its children. */
export interface ListedVersionSync {
  type: 'listed_version';
  /** JSONata; default: a hash of the whole record as listed (a move or a new follower changes it too). */
  version?: Expression;
}

/** How a cursor value is written: ISO 8601 text, or seconds or milliseconds since the epoch. */
export type CursorFormat = 'iso' | 'epoch_seconds' | 'epoch_millis';

/** Incremental runs: only records updated since the last run's highest cursor (minus the look-back window) are listed. */
export interface UpdatedSinceSync {
  type: 'updated_since';
  /** JSONata: the record's updated time. */
  cursor: Expression;
  cursor_format?: CursorFormat;
  /** The documents request's query parameter that takes the lower bound; `template` wraps it (`{cursor}` is the value). */
  lower_bound: { parameter: string; template?: string };
  /** How far before the last cursor the next run starts: an ISO 8601 duration (PT10M) or seconds. */
  look_back?: string | number;
  /** JSONata: true when the record says it is deleted (a delete event). */
  tombstone?: Expression;
}

/** Incremental runs: a change feed read from the token the last run stored. */
export interface ChangeFeedSync {
  type: 'change_feed';
  feed: {
    requester: Requester;
    record_selector?: string;
    /** The query parameter that takes the stored token. */
    token_parameter: string;
    /** Where an answer gives the next token: a dotted path in the body, or a header. */
    token: { from: 'body'; path: string } | { from: 'header'; name: string };
    /** JSONata over a page's body: true when another page follows (default: while a page has events and the token moved). */
    has_more?: Expression;
  };
  map: {
    /** JSONata over an event: the document's id. */
    id: Expression;
    /** JSONata over an event: true for a delete. */
    delete?: Expression;
  } & (
    | {
        /** JSONata over an event: the document's record as the documents listing gives it (default: the event). */
        record?: Expression;
        lookup?: never;
      }
    | { record?: never; lookup: FeedLookup }
  );
}

/**
 * An upsert event's record read by a request of its own (a feed whose events carry only ids):
 * `{record.x}` in the requester's path and parameters is the event's field. A 404 or 410 is a delete.
 */
export interface FeedLookup {
  requester: Requester;
  /** Where the record is in the answer (default: the whole body). */
  record_selector?: string;
}

export type IncrementalSync = ListedVersionSync | UpdatedSinceSync | ChangeFeedSync;

export interface DocumentsStream extends Listing {
  partition_router?: PartitionRouter;
  incremental_sync?: IncrementalSync;
  children?: ChildDocumentsStream[];
  map: DocumentMap;
  content: {
    html?: { template: string; request?: Requester; version?: Expression };
    binary?: { url: Expression; version?: Expression };
  };
  access: AccessSpec;
}

export interface RestManifest {
  version: 1;
  name?: string;
  description?: string;
  identities?: 'id' | 'email';
  concurrency?: number;
  max_pages?: number;
  expression_limits?: { timeout_ms?: number; max_depth?: number };
  requester: BaseRequester;
  streams: {
    users?: UsersStream;
    groups?: GroupsStream | GroupsStream[];
    containers?: ContainersStream;
    documents: DocumentsStream;
  };
}
