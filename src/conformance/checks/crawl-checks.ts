import { fail, warn, type Finding } from '../finding';
import { outcome, type CheckInput } from './check-input';

/** Whether the crawl could read every endpoint, and whether any request failed in transport. */
export function crawlChecks(input: CheckInput): Finding[] {
  const endpoint: Finding[] = [];
  for (const l of input.crawl.listings) {
    if (!l.failure) continue;
    const topLevel = l.collection === 'users' || l.collection === 'groups' || l.collection === 'files';
    if (!topLevel && !l.collection.startsWith('members:')) continue; // access lists: permissions.endpoint
    const e = { url: l.failure.url, field: 'status', value: l.failure.status };
    if (l.pages > 0) endpoint.push(fail('crawl.endpoints', `Listing ${l.collection} broke off after ${l.pages} pages: ${l.failure.message}.`, e));
    else if (l.failure.status === 404 && (l.collection === 'users' || l.collection === 'groups')) {
      endpoint.push(
        warn('crawl.endpoints', `/v1/${l.collection} is not implemented (404): only the "Public to all" strategy can work, not per-file access.`, e),
      );
    } else if (l.failure.status === 401) {
      endpoint.push(
        fail(
          'crawl.endpoints',
          `Listing ${l.collection} failed: the gateway refused the key (401); check the key (CONFORMANCE_API_KEY, GATEWAY_API_KEY or --key-file) and --auth-form.`,
          e,
        ),
      );
    } else endpoint.push(fail('crawl.endpoints', `Listing ${l.collection} failed: ${l.failure.message}.`, e));
  }
  const transport = input.transportErrors.map((t) => fail('crawl.transport', `No answer to a ${t.kind} request: ${t.message}.`, { url: t.url }));
  return [
    ...outcome(
      'crawl.endpoints',
      endpoint,
      `files, groups, members and users all listed to the end (${input.stats.requests.toLocaleString('en-US')} requests)`,
    ),
    ...outcome('crawl.transport', transport, 'every request got an answer'),
  ];
}
