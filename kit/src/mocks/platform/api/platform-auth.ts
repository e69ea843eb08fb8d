/**
 * The simulator's credentials and how each API checks them (seed: Authentication):
 * - `POST /oauth/v1/token`: OAuth 2.0 client credentials (JSON or form body, or HTTP Basic) →
 *   a JWT (HS256, 3600 s on the simulator clock) scoped to one API;
 * - Conversations API: `Bearer <JWT>` of the conversations client (401 otherwise);
 * - Data API: the Data API key (bare or `Bearer`) or `Bearer <JWT>` of the data client (403 otherwise);
 * - Message API: the message API key (bare or `Bearer`; 401 otherwise).
 */
import crypto from 'node:crypto';
import { SignJWT, jwtVerify } from 'jose';
import { ApiError } from './api-error';

export type TokenScope = 'conversations' | 'data';

export interface OAuthClient {
  clientId: string;
  clientSecret: string;
}

export interface Credentials {
  /** Bearer key of the private `/_admin` paths. */
  adminKey: string;
  dataApiKey: string;
  messageApiKey: string;
  /** The `Assistant-Name` configured for the organization. */
  assistantName: string;
  clients: Record<TokenScope, OAuthClient>;
}

export interface TokenClaims {
  scope: TokenScope;
  clientId: string;
  /** The person a token was issued for (`user_email` in the token request), if any. */
  email?: string;
}

export const TOKEN_TTL_SECONDS = 3600;
const ISSUER = 'platform-simulator';

const secret = (label: string): string => `${label}-${crypto.randomBytes(16).toString('hex')}`;

export function generateCredentials(partial: Partial<Credentials> = {}): Credentials {
  return {
    adminKey: partial.adminKey ?? secret('admin'),
    dataApiKey: partial.dataApiKey ?? secret('data-key'),
    messageApiKey: partial.messageApiKey ?? secret('message-key'),
    assistantName: partial.assistantName ?? 'northwind-assistant',
    clients: partial.clients ?? {
      conversations: { clientId: 'conversations-client', clientSecret: secret('cs') },
      data: { clientId: 'data-export-client', clientSecret: secret('ds') },
    },
  };
}

const equal = (a: string, b: string): boolean => {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
};

/** The credential in an `Authorization` header: `Bearer <x>` or the bare value. */
export function presented(header: string | undefined): string | undefined {
  const value = header?.trim();
  if (!value) return undefined;
  const m = /^Bearer\s+(.+)$/i.exec(value);
  return m ? m[1]?.trim() : value;
}

export class PlatformAuth {
  private readonly key = crypto.randomBytes(32);

  constructor(
    readonly credentials: Credentials,
    private readonly now: () => number,
  ) {}

  /** Issues a token for client credentials; `body` is the parsed JSON or form body. */
  async issueToken(
    body: Record<string, unknown>,
    authorization: string | undefined,
  ): Promise<{ access_token: string; token_type: 'Bearer'; expires_in: number }> {
    let id = typeof body.client_id === 'string' ? body.client_id : undefined;
    let pass = typeof body.client_secret === 'string' ? body.client_secret : undefined;
    if (authorization && /^basic\s/i.test(authorization)) {
      const decoded = Buffer.from(authorization.slice(6).trim(), 'base64').toString('utf8');
      const colon = decoded.indexOf(':');
      if (colon > 0) [id, pass] = [decodeURIComponent(decoded.slice(0, colon)), decodeURIComponent(decoded.slice(colon + 1))];
    }
    if (body.grant_type !== 'client_credentials') throw new ApiError('bad-request', 'grant_type must be client_credentials');
    const scope = (Object.keys(this.credentials.clients) as TokenScope[]).find(
      (s) => id !== undefined && pass !== undefined && this.credentials.clients[s].clientId === id && equal(this.credentials.clients[s].clientSecret, pass),
    );
    if (!scope) throw new ApiError('unauthorized', 'unknown client or wrong secret');
    const claims: Record<string, string> = { scope };
    if (typeof body.user_email === 'string' && body.user_email.includes('@')) claims.email = body.user_email;
    const iat = Math.floor(this.now() / 1000);
    const token = await new SignJWT(claims)
      .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
      .setIssuer(ISSUER)
      .setSubject(id as string)
      .setIssuedAt(iat)
      .setExpirationTime(iat + TOKEN_TTL_SECONDS)
      .setJti(crypto.randomUUID())
      .sign(this.key);
    return { access_token: token, token_type: 'Bearer', expires_in: TOKEN_TTL_SECONDS };
  }

  /** The claims of a valid, unexpired JWT of `scope`, or undefined. */
  async verify(token: string | undefined, scope: TokenScope): Promise<TokenClaims | undefined> {
    if (!token || token.split('.').length !== 3) return undefined;
    try {
      const { payload } = await jwtVerify(token, this.key, { issuer: ISSUER, algorithms: ['HS256'], currentDate: new Date(this.now()) });
      if (payload.scope !== scope || typeof payload.sub !== 'string') return undefined;
      const claims: TokenClaims = { scope, clientId: payload.sub };
      if (typeof payload.email === 'string') claims.email = payload.email;
      return claims;
    } catch {
      return undefined;
    }
  }

  /** Conversations API: a JWT of the conversations client, else 401. */
  async conversations(authorization: string | undefined): Promise<TokenClaims> {
    const m = /^Bearer\s+(\S+)$/i.exec(authorization?.trim() ?? '');
    const claims = await this.verify(m?.[1], 'conversations');
    if (!claims)
      throw new ApiError('unauthorized', authorization ? 'The access token is invalid or expired' : 'Authorization: Bearer <ACCESS_TOKEN> is required');
    return claims;
  }

  /** Data API: its API key or a JWT of the data client, else 403 (the Data API lists no 401). */
  async data(authorization: string | undefined): Promise<void> {
    const value = presented(authorization);
    if (value !== undefined && equal(value, this.credentials.dataApiKey)) return;
    if (await this.verify(value, 'data')) return;
    throw new ApiError('forbidden', value === undefined ? 'The Authorization header is required' : 'The credentials are not valid for the Data API');
  }

  /** Message API: the message API key, else 401. */
  message(authorization: string | undefined): void {
    const value = presented(authorization);
    if (value === undefined || !equal(value, this.credentials.messageApiKey)) throw new ApiError('unauthorized', 'A valid message API key is required');
  }

  admin(authorization: string | undefined): boolean {
    const value = presented(authorization);
    return value !== undefined && equal(value, this.credentials.adminKey);
  }
}
