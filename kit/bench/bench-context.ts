import http from 'node:http';
import { getJson } from './http-get';
import { stageFiles, type StagedFiles } from './stage-files';
import { AUTH_HEADERS, startBenchGateway, type BenchGateway } from './start-bench-gateway';

export interface StagedGateway {
  gateway: BenchGateway;
  staged: StagedFiles;
}

interface ListBody {
  value: Array<{ id: string }>;
  '@odata.nextLink'?: string;
}

/** Rows per crawl page when collecting start positions. */
export const TOKEN_STRIDE = 1000;

/**
 * What several benchmarks share within one run: the gateway over the 100,000-file corpus
 * (staged once, lazily, so `--only` pays only for what it runs) and the skiptokens of a crawl.
 */
/** What the token-collecting crawl saw: every staged row exactly once, or the paging is broken. */
export interface CrawlCheck {
  pages: number;
  rows: number;
  unique: number;
}

export class BenchContext {
  private gateway?: Promise<StagedGateway>;
  private readonly tokens = new Map<string, Promise<string[]>>();
  readonly crawls = new Map<string, CrawlCheck>();
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

  /** `postgresUrl`: serve from a schema of its own there instead of SQLite. */
  constructor(
    readonly fileCount: number,
    readonly postgresUrl?: string,
  ) {}

  /** `SQLite` or `Postgres`, for metric names. */
  get database(): string {
    return this.postgresUrl ? 'Postgres' : 'SQLite';
  }

  stagedGateway(): Promise<StagedGateway> {
    this.gateway ??= (async () => {
      const gateway = await startBenchGateway(this.postgresUrl ? { postgresUrl: this.postgresUrl } : {});
      const staged = await stageFiles(gateway.db, this.fileCount);
      return { gateway, staged };
    })();
    return this.gateway;
  }

  /**
   * `$skiptoken`s of one crawl at `$top=1000`: entry i starts the page after row (i + 1) * 1000.
   * `$top` is not part of a token, so any page size may follow them. `orderby` '' is the default order.
   */
  skipTokens(orderby: string): Promise<string[]> {
    let found = this.tokens.get(orderby);
    if (!found) {
      found = (async () => {
        const { gateway } = await this.stagedGateway();
        const list: string[] = [];
        const ids = new Set<string>();
        const check: CrawlCheck = { pages: 0, rows: 0, unique: 0 };
        let url: string | undefined = `${gateway.url}/v1/files?$top=${TOKEN_STRIDE}${orderby ? `&$orderby=${orderby}` : ''}`;
        while (url) {
          const body: ListBody = await getJson<ListBody>(url, this.agent, AUTH_HEADERS);
          check.pages += 1;
          check.rows += body.value.length;
          for (const item of body.value) ids.add(item.id);
          url = body['@odata.nextLink'];
          if (url) list.push(new URL(url).searchParams.get('$skiptoken') ?? '');
        }
        check.unique = ids.size;
        this.crawls.set(orderby, check);
        return list;
      })();
      this.tokens.set(orderby, found);
    }
    return found;
  }

  /** Stops the shared gateway if one started (a failed start was already reported by its benchmark). */
  async close(): Promise<void> {
    this.agent.destroy();
    const started = await this.gateway?.catch(() => undefined);
    await started?.gateway.close();
  }
}
