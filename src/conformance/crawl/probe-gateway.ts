import crypto from 'node:crypto';
import type { Profile } from '../conformance-profile';
import { errorEnvelope } from './contract-validation';
import type { ProbeChain, ProbeResult } from './crawl-record';
import type { AuthForm, GatewayClient, GatewayResponse } from './gateway-client';
import { listAll } from './list-all';
import { PROBE_FAMILIES, type Probe, type ProbeAim } from './probe-families';

/** What the crawl found that probes can aim at (a real file, a binary, a group, real nextLinks). */
export interface ProbeTargets {
  fileId?: string;
  binaryId?: string;
  groupId?: string;
  /** nextLinks the crawl followed; one carrying a `$skiptoken` is tampered with. */
  nextLinks: string[];
  /** Every file id the crawl listed: a listing a probe follows to its end must list the same. */
  fileIds: ReadonlySet<string>;
}

/** Who is probing and how: the key, the Authorization form the crawl used, the profile judging. */
export interface ProbeSetup {
  key: string;
  authForm: AuthForm;
  profile: Profile;
}

const LEAK = /root:[^:\n]*:0:0:|\[(?:fonts|extensions|mci extensions)\]|for 16-bit app support/i;

function itemsOf(res: GatewayResponse): number | undefined {
  const body = res.json as { value?: unknown } | undefined;
  if (!body || typeof body !== 'object') return undefined;
  if (Array.isArray(body.value)) return body.value.length;
  const permissions = (body.value as { permissions?: unknown } | undefined)?.permissions;
  return Array.isArray(permissions) ? permissions.length : undefined;
}

/**
 * Follows a files page a probe got through its nextLinks to the end: whether the chain loops, and
 * how many of the crawl's files it never lists (a `$top=-1` read as a slice end drops items).
 */
async function followChain(client: GatewayClient, url: string, first: GatewayResponse, fileIds: ReadonlySet<string>): Promise<ProbeChain | undefined> {
  const body = first.json as { value?: unknown; '@odata.nextLink'?: unknown } | undefined;
  if (!body || !Array.isArray(body.value)) return undefined;
  const listed = new Set<string>();
  const collect = (items: unknown[]) => {
    for (const item of items)
      if (item && typeof item === 'object' && typeof (item as { id?: unknown }).id === 'string') listed.add((item as { id: string }).id);
  };
  collect(body.value);
  const chain: ProbeChain = { pages: 1, listed: 0, missing: 0 };
  const next = body['@odata.nextLink'];
  if (typeof next === 'string' && next !== '') {
    const nextUrl = /^https?:\/\//i.test(next) ? next : new URL(next, url).href;
    if (nextUrl === url) chain.loop = url;
    else {
      const rest = await listAll(client, {
        collection: 'probe',
        kind: 'probe',
        firstUrl: nextUrl,
        keyOf: () => undefined,
        onItems: collect,
        maxPages: Math.max(10, fileIds.size + 2),
      });
      chain.pages += rest.pages;
      if (rest.loop) chain.loop = rest.loop.url;
      if (rest.failure) chain.failure = `${rest.failure.url}: ${rest.failure.message}`;
    }
  }
  chain.listed = listed.size;
  const missing = [...fileIds].filter((id) => !listed.has(id));
  chain.missing = missing.length;
  if (missing[0] !== undefined) chain.firstMissing = missing[0];
  return chain;
}

/** Sends one probe and records how the gateway answered (following a files page when asked to). */
async function runProbe(client: GatewayClient, p: Probe, fileIds: ReadonlySet<string>): Promise<ProbeResult> {
  const url = p.url ?? client.url(p.path);
  const res = await client.get(url, { kind: 'probe', mode: p.download ? 'hash' : 'json', auth: p.auth ?? 'default' });
  const envelope = errorEnvelope(res.json);
  const result: ProbeResult = {
    check: p.check,
    description: p.description,
    url,
    status: res.status,
    envelope: envelope !== undefined,
    expect: p.expect,
    otherwise: p.otherwise,
  };
  if (envelope) result.code = envelope.code;
  const items = res.status >= 200 && res.status < 300 ? itemsOf(res) : undefined;
  if (items !== undefined) result.items = items;
  if (res.snippet && LEAK.test(res.snippet)) result.leaked = true;
  if (res.error) result.error = res.error;
  if (p.follow && res.status === 200) {
    const chain = await followChain(client, url, res, fileIds);
    if (chain) result.chain = chain;
  }
  return result;
}

/**
 * Requests that change nothing but show how a gateway copes with what a crawler (or anyone who
 * reaches it) may send: missing and wrong keys on every endpoint, the other Authorization form,
 * malformed `$top` and other options, tampered cursors, unknown, over-long and path-traversal ids,
 * an unknown route (the families of PROBE_FAMILIES). Only GETs.
 */
export async function probeGateway(client: GatewayClient, targets: ProbeTargets, setup: ProbeSetup): Promise<ProbeResult[]> {
  const random = crypto.randomBytes(6).toString('hex');
  const unknown = `conformance-probe-unknown-${random}`;
  const fileId = targets.fileId ?? unknown;
  const aim: ProbeAim = {
    random,
    unknown,
    fileId,
    binaryId: targets.binaryId ?? fileId,
    groupId: targets.groupId ?? unknown,
    nextLinks: targets.nextLinks,
    key: setup.key,
    authForm: setup.authForm,
    profile: setup.profile,
  };
  const probes = PROBE_FAMILIES.flatMap((family) => family.probes(aim));
  return Promise.all(probes.map((p) => runProbe(client, p, targets.fileIds)));
}
