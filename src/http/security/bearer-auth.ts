import type { Request, Response } from 'express';
import passport from 'passport';
import { Strategy as BearerStrategy } from 'passport-http-bearer';
import { looksLikeJwt, type AccessTokens } from './access-tokens';
import type { ApiKeyVerifier } from './api-key-verifier';

export interface AuthenticatedClient {
  /** Which credential matched: `api-key:<index>` or `oauth:<client id>` (never the secret itself). */
  clientId: string;
}

/**
 * The `bearerAuth` security handler of the contract: passport-http-bearer with the configured API
 * keys and, when OAuth is on, the access tokens `/oauth2/token` issues. The platform may send
 * `Authorization: Bearer <key>` or the bare key, so a bare value is read as a bearer credential.
 * Credentials anywhere but the header (query or body `access_token`) are refused: they would end
 * up in URLs and logs.
 */
export function createBearerAuth(keys: ApiKeyVerifier, tokens?: AccessTokens) {
  const authenticator = new passport.Authenticator();
  authenticator.use(
    'gateway-bearer',
    new BearerStrategy({ passReqToCallback: true }, (req: Request, token: string, done: (err: unknown, user?: AuthenticatedClient | false) => void) => {
      if (!req.headers.authorization) return done(null, false);
      const index = keys.verify(token);
      if (index !== undefined) return done(null, { clientId: `api-key:${index}` });
      if (!tokens || !looksLikeJwt(token)) return done(null, false);
      tokens.verify(token).then(
        (clientId) => done(null, clientId ? { clientId: `oauth:${clientId}` } : false),
        () => done(null, false),
      );
    }),
  );

  return (req: Request, res: Response): Promise<AuthenticatedClient | false> => {
    const header = req.headers.authorization?.trim();
    if (header && !/^bearer\s/i.test(header)) req.headers.authorization = `Bearer ${header}`;
    return new Promise((resolve) => {
      authenticator.authenticate('gateway-bearer', { session: false }, (err: unknown, client: AuthenticatedClient | false) => {
        resolve(err ? false : client);
      })(req, res, () => resolve(false));
    });
  };
}
