import DataLoader from 'dataloader';
import type { QueryValue } from '../../outbound-http/outbound-http-client';
import { SourceUnavailableError } from '../source-error';
import type { Expressions } from './rest-expressions';
import { selectPath } from './rest-expressions';
import type { BatchSpec, ResponseFilter } from './rest-manifest';

/** One GET a stream asked for, to go out inside a batch. */
export interface BatchedRead {
  path: string;
  query: Record<string, QueryValue>;
  filters: readonly ResponseFilter[];
}

/** What the batcher needs of the requester: the batch call itself, and the response rules each result is judged by. */
export interface BatchTransport<R> {
  /** `POST <batch.path>` with this JSON body, through the requester's retries, authentication and rules; its JSON body. */
  post(path: string, body: unknown): Promise<unknown>;
  /** A result as if it had been its own response: the same response rules, the same typed errors. */
  judge(response: Response, url: string, filters: readonly ResponseFilter[]): Promise<R>;
}

/** How long reads are gathered before a batch leaves (a sibling read of another record arrives within it). */
const GATHER_MS = 2;

function relativePath(read: BatchedRead): string {
  const params = new URLSearchParams();
  for (const [key, value] of Object.entries(read.query)) {
    if (value === undefined || value === null) continue;
    params.set(key, String(value));
  }
  const query = params.toString();
  return query ? `${read.path}?${query}` : read.path;
}

/**
 * `requester.batch`: the reads of requesters marked `batch: true` that are pending at once go out
 * as one call of up to `max_actions` actions (DataLoader gathers them), each action built by the
 * manifest's `action` expression and the call's body by its `body` expression; the call's
 * results, in order, are each judged as the response the read would have had (its status, its
 * body), so a result's error fails that read exactly as a direct request's would: on an access
 * or identity stream the stream fails, nothing is guessed. A batch call that fails, or answers
 * another number of results, fails every read in it.
 */
export class RestBatcher<R> {
  private readonly loader: DataLoader<BatchedRead, R, BatchedRead>;

  constructor(
    private readonly spec: BatchSpec,
    private readonly expressions: Expressions,
    private readonly transport: BatchTransport<R>,
  ) {
    this.loader = new DataLoader((reads) => this.send(reads), {
      cache: false,
      maxBatchSize: spec.max_actions,
      batchScheduleFn: (callback) => setTimeout(callback, GATHER_MS),
    });
  }

  read(read: BatchedRead): Promise<R> {
    return this.loader.load(read);
  }

  private async send(reads: readonly BatchedRead[]): Promise<Array<R | Error>> {
    const actions = await Promise.all(
      reads.map((read) =>
        this.expressions.evaluate(this.spec.action, { method: 'GET', path: read.path, query: read.query, relative_path: relativePath(read) }),
      ),
    );
    const body = await this.expressions.evaluate(this.spec.body, { actions });
    const answer = await this.transport.post(this.spec.path, body);
    const results = selectPath(answer, this.spec.results);
    if (!Array.isArray(results) || results.length !== reads.length) {
      const count = Array.isArray(results) ? results.length : 'no';
      throw new SourceUnavailableError(`The batch endpoint ${this.spec.path} answered ${count} results for ${reads.length} actions`);
    }
    return Promise.all(reads.map((read, i) => this.result(read, results[i]).catch((error: unknown) => error as Error)));
  }

  private async result(read: BatchedRead, result: unknown): Promise<R> {
    const status = Number(await this.expressions.evaluate(this.spec.status, result));
    if (!Number.isInteger(status) || status < 200 || status > 599) {
      throw new SourceUnavailableError(`A result of the batch endpoint ${this.spec.path} has no HTTP status (${this.spec.status}) for ${read.path}`);
    }
    const body = await this.expressions.evaluate(this.spec.result_body, result);
    const response = new Response(body === undefined ? '' : JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
    return this.transport.judge(response, relativePath(read), read.filters);
  }
}
