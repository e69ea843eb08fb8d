import type { SyncEvent } from '../../../src/adapters/adapter';
import { startPlatformSampleGateway, type PlatformSampleGateway } from '../../conformance/platform-sample-gateway';
import { gatewayAdapter, silent } from './rest-gateway-fixture';

/** The files listing with each file's `status` replaced as `statuses` says (by id; `undefined` removes it). */
function rewritingStatuses(statuses: Readonly<Record<string, unknown>>): typeof fetch {
  return async (input, init) => {
    const response = await fetch(input, init);
    const url = new URL(input instanceof Request ? input.url : String(input));
    if (url.pathname !== '/v1/files' || !response.ok) return response;
    const body = (await response.json()) as { value: Array<Record<string, unknown>> };
    for (const file of body.value) {
      if (!Object.hasOwn(statuses, String(file.id))) continue;
      const status = statuses[String(file.id)];
      if (status === undefined) delete file.status;
      else file.status = status;
    }
    return new Response(JSON.stringify(body), { status: response.status, headers: response.headers });
  };
}

/**
 * manifests/content-gateway.yaml serves a file whose `status` is `active`, absent or null (what the
 * platform's spec allows), and leaves out every other: `deleted`, and a value the spec does not know
 * (a source's own `archived`, a capitalised `Deleted`). An unknown status fails closed.
 */
describe('manifests/content-gateway.yaml: which file statuses are served', () => {
  let sample: PlatformSampleGateway;
  beforeAll(async () => {
    sample = await startPlatformSampleGateway({ key: 'sample-key-0123456789', specExtras: false });
  });
  afterAll(() => sample?.close());

  it('serves active, absent and null statuses, and leaves out deleted and unknown ones', async () => {
    const listing = (await (await fetch(`${sample.url}/v1/files?$top=100`, { headers: { Authorization: `Bearer ${sample.key}` } })).json()) as {
      value: Array<{ id: string }>;
    };
    const [active, absent, nulled, deleted, archived, capitalised] = listing.value.map((f) => f.id);
    const adapter = gatewayAdapter(sample.url, sample.key, {
      fetch: rewritingStatuses({ [absent!]: undefined, [nulled!]: null, [deleted!]: 'deleted', [archived!]: 'archived', [capitalised!]: 'Deleted' }),
    });
    const out: SyncEvent[] = [];
    for await (const event of adapter.full({ logger: silent, signal: new AbortController().signal, now: () => new Date() })) out.push(event);
    const files = new Set(out.flatMap((e) => (e.type === 'file' ? [e.file.nativeId] : [])));
    expect(Object.fromEntries([active, absent, nulled, deleted, archived, capitalised].map((id) => [id, files.has(id!)]))).toEqual({
      [active!]: true,
      [absent!]: true,
      [nulled!]: true,
      [deleted!]: false,
      [archived!]: false,
      [capitalised!]: false,
    });
  });
});
