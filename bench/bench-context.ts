import http from 'node:http';
import { getJson } from './http-get';
import { stageFiles, type StagedFiles } from './stage-files';
import { AUTH_HEADERS, startBenchGateway, type BenchGateway } from './start-bench-gateway';

export interface StagedGateway {
  gateway: BenchGateway;
  staged: StagedFiles;
}

interface ListBody {
  value: unknown[];
  '@odata.nextLink'?: string;
}

/** Rows per crawl page when collecting start positions. */
export const TOKEN_STRIDE = 1000;

/**
 * What several benchmarks share within one run: the gateway over the 100,000-file corpus
 * (staged once, lazily, so `--only` pays only for what it runs) and the skiptokens of a crawl.
 */
export class BenchContext {
  private gateway?: Promise<StagedGateway>;
  private readonly tokens = new Map<string, Promise<string[]>>();
  private readonly agent = new http.Agent({ keepAlive: true, maxSockets: 1 });

  constructor(readonly fileCount: number) {}

  stagedGateway(): Promise<StagedGateway> {
    this.gateway ??= (async () => {
      const gateway = await startBenchGateway();
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
        let url: string | undefined = `${gateway.url}/v1/files?$top=${TOKEN_STRIDE}${orderby ? `&$orderby=${orderby}` : ''}`;
        while (url) {
          const body: ListBody = await getJson<ListBody>(url, this.agent, AUTH_HEADERS);
          url = body['@odata.nextLink'];
          if (url) list.push(new URL(url).searchParams.get('$skiptoken') ?? '');
        }
        return list;
      })();
      this.tokens.set(orderby, found);
    }
    return found;
  }

  async close(): Promise<void> {
    this.agent.destroy();
    if (this.gateway) await (await this.gateway).gateway.close();
  }
}
