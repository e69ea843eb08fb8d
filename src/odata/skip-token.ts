import crypto from 'node:crypto';
import { z } from 'zod';
import { GatewayError } from '../errors/gateway-error';
import type { ComparisonOp } from './collection-spec';

/** The longest `$skiptoken` the gateway accepts (the contract's `maxLength`), and so the longest it may issue. */
export const MAX_SKIPTOKEN_LENGTH = 4096;

const OPS = ['eq', 'gt', 'ge', 'lt', 'le'] as const satisfies readonly ComparisonOp[];

/** The first format: the first request's `$orderby`, `$filter` and `$select` as given, keys as they are. Still read. */
const payloadV1 = z.object({
  v: z.literal(1),
  c: z.string(),
  o: z.string(),
  f: z.string(),
  s: z.string(),
  k: z.array(z.string()).min(1).max(2),
});

/**
 * The current format: the collection by digest, the query options in canonical form (a filter
 * reduced to a few comparisons), every value and key percent-encoded. Its length is then bounded
 * by what it carries that can be long, a key and an `id eq` value, each a served id (at most
 * `MAX_ID_LENGTH` characters percent-encoded): well under `MAX_SKIPTOKEN_LENGTH`.
 */
const payloadV2 = z.object({
  v: z.literal(2),
  c: z.string(),
  o: z.string(),
  s: z.string(),
  f: z.array(z.tuple([z.string(), z.enum(OPS), z.string()])).max(64),
  k: z.array(z.string()).min(1).max(2),
});

const skipTokenPayload = z.discriminatedUnion('v', [payloadV1, payloadV2]);

/** A crawl's query options in canonical form: `$orderby` and `$select` as text, `$filter` as comparisons (repository field, operator, value). */
export interface CarriedOptions {
  orderby: string;
  select: string;
  filter: ReadonlyArray<readonly [field: string, op: ComparisonOp, value: string]>;
}

/** What a `$skiptoken` says: where the next page starts, and the options of the crawl (canonical, or as a first-format token gave them). */
export type Continuation =
  | { format: 'canonical'; options: CarriedOptions; after: string[] }
  | { format: 'given'; options: { orderby: string; filter: string; select: string }; after: string[] };

const ACCEPTED = 'Follow @odata.nextLink exactly as the gateway returned it, or start again without $skiptoken.';

function invalid(why: string): never {
  throw new GatewayError('INPUT_VALIDATION_FAILED', `Invalid $skiptoken: ${why}. ${ACCEPTED}`);
}

function decodeText(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return invalid('it is malformed');
  }
}

/** Which collection a token belongs to, in a fixed length however long the collection's id. */
function collectionDigest(collection: string): string {
  return crypto.hash('sha256', collection, 'base64url');
}

/**
 * Opaque, HMAC-SHA256-signed cursors: `base64url(json).base64url(mac)`. A token edited by hand,
 * signed by another gateway, or issued for another collection is refused with a 400.
 */
export class SkipTokenCodec {
  private readonly key: Buffer;

  constructor(secret: string) {
    if (secret.length < 32) throw new Error('The $skiptoken secret must be at least 32 characters.');
    this.key = Buffer.from(secret, 'utf8');
  }

  /**
   * The token for the page after `after` in `collection`. Strings go in percent-encoded, so each
   * takes what it takes in a URL and no more (JSON would spell a control character in six bytes).
   */
  encode(collection: string, options: CarriedOptions, after: readonly string[]): string {
    const payload: z.infer<typeof payloadV2> = {
      v: 2,
      c: collectionDigest(collection),
      o: options.orderby,
      s: options.select,
      f: options.filter.map(([field, op, value]) => [field, op, encodeURIComponent(value)]),
      k: after.map((key) => encodeURIComponent(key)),
    };
    const body = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url');
    const token = `${body}.${this.mac(body)}`;
    // Served ids are bounded (wire/global-id), so only a row staged outside that rule gets here.
    if (token.length > MAX_SKIPTOKEN_LENGTH)
      throw new Error(
        `A $skiptoken after this page would be ${token.length} characters (over ${MAX_SKIPTOKEN_LENGTH}): a staged key is longer than a served id may be.`,
      );
    return token;
  }

  decode(token: string, collection: string): Continuation {
    const dot = token.indexOf('.');
    if (dot <= 0 || token.length > MAX_SKIPTOKEN_LENGTH) return invalid('it is malformed');
    const body = token.slice(0, dot);
    // Compared as text, not decoded bytes: base64 has several spellings of the same bytes, and a
    // token must have exactly one.
    const mac = Buffer.from(token.slice(dot + 1), 'utf8');
    const expected = Buffer.from(this.mac(body), 'utf8');
    if (mac.length !== expected.length || !crypto.timingSafeEqual(mac, expected)) {
      return invalid('its signature does not match (edited, or issued by another gateway)');
    }
    let parsed: unknown;
    try {
      parsed = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      return invalid('it is malformed');
    }
    const result = skipTokenPayload.safeParse(parsed);
    if (!result.success) return invalid('it is from an unsupported version');
    const p = result.data;
    if (p.v === 1) {
      if (p.c !== collection) return invalid('it was issued for another collection');
      return { format: 'given', options: { orderby: p.o, filter: p.f, select: p.s }, after: p.k };
    }
    if (p.c !== collectionDigest(collection)) return invalid('it was issued for another collection');
    const filter = p.f.map(([field, op, value]) => [field, op, decodeText(value)] as const);
    return { format: 'canonical', options: { orderby: p.o, select: p.s, filter }, after: p.k.map(decodeText) };
  }

  private mac(body: string): string {
    return crypto.createHmac('sha256', this.key).update(body).digest('base64url');
  }
}
