import type { RetryPolicy } from '../../outbound-http/retry-policy';
import type { AccessOnlyAdapter, AdapterContext, LiveFile, SyncEvent } from '../adapter';
import type { AccessDeps } from './rest-access';
import { groupEvents, readContainers, userEvents } from './rest-directory';
import { documentEvents } from './rest-document-walk';
import { liveFilesOf, newLiveState, type LiveState } from './rest-live-files';
import type { LoadedManifest } from './rest-manifest-file';
import { openBudget, type RequestBudget } from './request-budget';
import { RestRequester } from './rest-requester';

export const DEFAULT_CONCURRENCY = 4;

export interface RestAdapterOptions {
  /** Source name: the id prefix of everything it yields. */
  name: string;
  loaded: LoadedManifest;
  /** Where `${env:NAME}` references are read (secrets included). */
  env: Readonly<Record<string, string | undefined>>;
  /** Transport (tests); default: the global fetch. */
  fetch?: typeof fetch;
  /** When and how often failed requests are asked again (tests: millisecond backoffs); default: `DEFAULT_RETRY_POLICY`. */
  retryPolicy?: RetryPolicy;
}

/** What one full run read, for `manifest check`: the requests it cost. */
export interface RestRun {
  readonly requests: number;
  /** How often requests waited: for the API's rate-limit window (`waited`), for the source's budget (`budgetWaited`). */
  readonly gate: { readonly waited: number; readonly budgetWaited: number };
}

/**
 * A REST system as a manifest describes it (docs/declarative-sources.md). Full runs (every run
 * lists everything and the engine sweeps what a completed run did not yield; `incremental_sync`
 * adds incremental runs, rest-incremental.ts) and access-only runs (`permissions`, then
 * `liveFiles`: access lists without content). Identity and
 * access are read fail-closed: a listing that fails (users, groups, containers, documents) fails
 * the run, so nothing is swept and staging keeps what it served; a group's members or a document's
 * access that cannot be read whole is that item's failure, and the engine keeps its staged state
 * (a new document is not served until its access can be read).
 */
export class RestAdapter implements AccessOnlyAdapter {
  readonly name: string;
  /** The last run's requester (its request count); undefined before a run. */
  lastRun: RestRun | undefined;
  /** What the last `liveFiles` listing saw (for `settle` after it). */
  protected live: LiveState | undefined;
  /** Files the last incremental run's changes wrote (from a feed's or a lower-bounded listing's records). */
  protected written: ReadonlySet<string> = new Set();

  constructor(protected readonly options: RestAdapterOptions) {
    this.name = options.name;
  }

  /** A requester and the resolution context for one run: secrets are read from the environment here. */
  prepare(ctx: AdapterContext, budget?: RequestBudget): AccessDeps {
    const { manifest, expressions } = this.options.loaded;
    const requester = new RestRequester(manifest, {
      env: this.options.env,
      ...(budget ? { budget } : {}),
      logger: ctx.logger,
      signal: ctx.signal,
      expressions,
      ...(this.options.fetch ? { fetch: this.options.fetch } : {}),
      ...(this.options.retryPolicy ? { retryPolicy: this.options.retryPolicy } : {}),
    });
    this.lastRun = requester;
    return {
      requester,
      expressions,
      dialect: manifest.identities ?? 'id',
      signal: ctx.signal,
      ...(manifest.max_pages ? { maxPages: manifest.max_pages } : {}),
    };
  }

  async *full(ctx: AdapterContext): AsyncGenerator<SyncEvent> {
    yield* this.withRun(ctx, (deps) => this.fullWith(deps));
  }

  /** Users and groups with their members, read fail-closed as in a full run: an access-only run's directory. */
  async *permissions(ctx: AdapterContext): AsyncGenerator<SyncEvent> {
    yield* this.withRun(ctx, (deps) => this.directoryEvents(deps));
  }

  /**
   * Every document with its access and its children's, from the full documents listing (no
   * content read): what access reconciliation and access-only runs compare staging with.
   */
  async *liveFiles(ctx: AdapterContext): AsyncGenerator<LiveFile> {
    yield* this.withRun(ctx, (deps) => this.liveWith(deps));
  }

  private async *liveWith(deps: AccessDeps): AsyncGenerator<LiveFile> {
    const { manifest } = this.options.loaded;
    const concurrency = manifest.concurrency ?? DEFAULT_CONCURRENCY;
    const containers = manifest.streams.containers ? await readContainers(manifest.streams.containers, deps, concurrency) : undefined;
    this.live = newLiveState(containers);
    yield* liveFilesOf(manifest.streams.documents, { ...deps, ...(containers ? { containers } : {}) }, concurrency, this.live);
    // A file this run wrote from a record the full listing no longer shows (a feed's stale upsert, its delete lost): the
    // engine does not ask about files the run touched, so it is listed with no access (served to nobody); the next run,
    // which does not touch it, finds it unlisted and deletes it. One whose access could not be read whole was listed
    // (unresolved: narrowed, fail closed; unreadable: it keeps what the run wrote).
    for (const id of this.written) if (!this.live.listed.has(id) && !this.live.unreadable.has(id)) yield { nativeId: id, access: [] };
  }

  private async *directoryEvents(deps: AccessDeps): AsyncGenerator<SyncEvent> {
    const { manifest } = this.options.loaded;
    const { users, groups } = manifest.streams;
    if (users) yield* userEvents(users, deps);
    if (groups) yield* groupEvents(groups, deps, manifest.concurrency ?? DEFAULT_CONCURRENCY);
  }

  /** Runs `body` with this run's requester, the request budget open for the run and closed after it. */
  protected async *withRun<T = SyncEvent>(ctx: AdapterContext, body: (deps: AccessDeps) => AsyncGenerator<T>): AsyncGenerator<T> {
    const budget = await openBudget(this.options.loaded.manifest.requester.rate_limit?.budget, this.name, this.options.env);
    try {
      yield* body(this.prepare(ctx, budget?.budget));
    } finally {
      budget?.close();
    }
  }

  private async *fullWith(deps: AccessDeps): AsyncGenerator<SyncEvent> {
    const { manifest } = this.options.loaded;
    const concurrency = manifest.concurrency ?? DEFAULT_CONCURRENCY;
    const { containers } = manifest.streams;
    yield* this.directoryEvents(deps);
    const withContainers = containers ? { ...deps, containers: await readContainers(containers, deps, concurrency) } : deps;
    yield* documentEvents(manifest.streams.documents, withContainers, concurrency);
  }
}
