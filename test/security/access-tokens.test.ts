import { SignJWT, decodeJwt } from 'jose';
import { AccessTokens } from '../../src/http/security/access-tokens';
import type { OAuthClient } from '../../src/http/security/client-secrets';

const KEY = 'access-token-signing-key-0123456789abcdef';
const AUDIENCE = 'content-gateway';
/** Clients as OAUTH_CLIENTS gives them (the hashes are never checked here: only compared). */
const CLIENTS: OAuthClient[] = Array.from({ length: 1500 }, (_, i) => ({ id: i === 0 ? 'platform' : `client-${i}`, secretHash: `scrypt$salt${i}$hash${i}` }));

/**
 * AccessTokens remembers tokens that verified; these check that a remembered token is judged
 * exactly as a fresh verification would judge it, whatever the clock does.
 */
describe('AccessTokens', () => {
  let clock: number;
  let tokens: AccessTokens;
  const seconds = () => Math.floor(clock / 1000);
  /** The `secret_version` claim a token issued to `sub` now carries, read from a real one. */
  const versionOf = async (sub: string): Promise<unknown> => decodeJwt(await tokens.issue(sub)).secret_version;
  const sign = async (claims: { sub?: string; exp: number; nbf?: number; version?: unknown }) => {
    const sub = claims.sub ?? 'platform';
    const version = 'version' in claims ? claims.version : await versionOf(sub);
    const jwt = new SignJWT(version === undefined ? {} : { secret_version: version })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject(sub)
      .setAudience(AUDIENCE)
      .setIssuer(AUDIENCE)
      .setExpirationTime(claims.exp);
    if (claims.nbf !== undefined) jwt.setNotBefore(claims.nbf);
    return jwt.sign(new TextEncoder().encode(KEY));
  };
  beforeEach(() => {
    clock = Date.parse('2026-06-01T00:00:00Z');
    tokens = new AccessTokens(KEY, AUDIENCE, 300, CLIENTS, () => new Date(clock));
  });

  it('accepts an issued token again and again until its exp, then never (exp <= now fails, as in jose)', async () => {
    const token = await tokens.issue('platform');
    for (let i = 0; i < 3; i++) expect(await tokens.verify(token)).toBe('platform');
    clock += 299_999;
    expect(await tokens.verify(token)).toBe('platform');
    clock += 1;
    expect(await tokens.verify(token)).toBeUndefined();
    expect(await tokens.verify(token)).toBeUndefined();
    clock -= 1; // a clock that steps back judges afresh, like a first verification would
    expect(await tokens.verify(token)).toBe('platform');
  });

  it('holds a token with a future nbf until then, remembered or not', async () => {
    const token = await sign({ exp: seconds() + 600, nbf: seconds() + 60 });
    expect(await tokens.verify(token)).toBeUndefined();
    clock += 60_000;
    expect(await tokens.verify(token)).toBe('platform');
    clock -= 1_000;
    expect(await tokens.verify(token)).toBeUndefined();
    clock += 1_000;
    expect(await tokens.verify(token)).toBe('platform');
  });

  it('refuses a remembered token with one character of its signature changed', async () => {
    const token = await tokens.issue('platform');
    expect(await tokens.verify(token)).toBe('platform');
    const last = token.at(-2) === 'A' ? 'B' : 'A';
    expect(await tokens.verify(`${token.slice(0, -2)}${last}${token.slice(-1)}`)).toBeUndefined();
    expect(await tokens.verify(`${token}x`)).toBeUndefined();
  });

  it('keeps verifying correctly when more tokens are in use than it remembers', async () => {
    const issued = await Promise.all(CLIENTS.map((c, i) => sign({ sub: c.id, exp: seconds() + 60 + (i % 7) })));
    for (let round = 0; round < 2; round++) {
      for (const [i, token] of issued.entries()) expect(await tokens.verify(token)).toBe(CLIENTS[i]?.id);
    }
    clock += 70_000;
    for (const token of issued.slice(0, 20)) expect(await tokens.verify(token)).toBeUndefined();
  });

  it('refuses a validly signed token whose client is not configured, or that names no secret or another one', async () => {
    const exp = seconds() + 60;
    expect(await tokens.verify(await sign({ sub: 'platform', exp }))).toBe('platform');
    const refused = {
      unknownClient: await sign({ sub: 'removed-client', exp, version: await versionOf('platform') }),
      noVersion: await sign({ sub: 'platform', exp, version: undefined }),
      anotherClientsVersion: await sign({ sub: 'platform', exp, version: await versionOf('client-1') }),
      changedSecret: await new AccessTokens(KEY, AUDIENCE, 300, [{ id: 'platform', secretHash: 'scrypt$other$hash' }], () => new Date(clock)).issue('platform'),
    };
    for (const [name, token] of Object.entries(refused)) expect([name, await tokens.verify(token)]).toEqual([name, undefined]);
    await expect(tokens.issue('removed-client')).rejects.toThrow(/no configured OAuth client/);
  });
});
