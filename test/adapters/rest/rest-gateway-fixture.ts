import path from 'node:path';
import pino from 'pino';
import { RestAdapter, restConfigFromEnv } from '../../../src/adapters/rest';
import { EffectiveAccess } from '../../../src/conformance/access/effective-access';
import { crawlAccess, type CrawledAccess } from '../../helpers/crawl-access';
import { QUICK_RETRIES } from '../../helpers/quick-retries';

export const GATEWAY_MANIFEST = path.join(__dirname, '../../../manifests/content-gateway.yaml');
export const silent = pino({ level: 'silent' });

/** The rest adapter over the shipped content-gateway manifest, pointed at `url` (through `fetch`, when a test breaks the wire). */
export function gatewayAdapter(url: string, key: string, options: { fetch?: typeof fetch; manifest?: string } = {}): RestAdapter {
  const env = { REST_MANIFEST: options.manifest ?? GATEWAY_MANIFEST, UPSTREAM_GATEWAY_URL: url, UPSTREAM_GATEWAY_KEY: key };
  const config = restConfigFromEnv(env);
  return new RestAdapter({ name: config.name, loaded: config.loaded, env, retryPolicy: QUICK_RETRIES, ...(options.fetch ? { fetch: options.fetch } : {}) });
}

/** Who can see which file (by its id without `prefix`), per email: what the platform would compute from a crawl. */
export function accessByEmail(crawl: CrawledAccess, prefix = ''): Record<string, string[]> {
  const access = new EffectiveAccess(crawl);
  const out: Record<string, string[]> = {};
  for (const user of crawl.users) {
    const seen = access.whatCanSee(user.email);
    out[user.email.toLowerCase()] = (seen?.files ?? []).map((f) => f.id.slice(prefix.length)).sort();
  }
  return out;
}

export { crawlAccess };
