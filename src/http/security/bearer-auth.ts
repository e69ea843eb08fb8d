import type { Request, Response } from 'express';
import passport from 'passport';
import { Strategy as BearerStrategy } from 'passport-http-bearer';
import type { ApiKeyVerifier } from './api-key-verifier';

export interface AuthenticatedClient {
  /** Which credential matched: `api-key:<index>` (never the key itself). */
  clientId: string;
}

/**
 * The `bearerAuth` security handler of the contract: passport-http-bearer with the configured API
 * keys. The platform may send `Authorization: Bearer <key>` or the bare key, so a bare value is
 * read as a bearer credential. Credentials anywhere but the header (query or body `access_token`)
 * are refused: they would end up in URLs and logs.
 */
export function createBearerAuth(verifier: ApiKeyVerifier) {
  const authenticator = new passport.Authenticator();
  authenticator.use(
    'api-key',
    new BearerStrategy({ passReqToCallback: true }, (req: Request, token: string, done: (err: unknown, user?: AuthenticatedClient | false) => void) => {
      if (!req.headers.authorization) return done(null, false);
      const index = verifier.verify(token);
      return done(null, index === undefined ? false : { clientId: `api-key:${index}` });
    }),
  );

  return (req: Request, res: Response): Promise<AuthenticatedClient | false> => {
    const header = req.headers.authorization?.trim();
    if (header && !/^bearer\s/i.test(header)) req.headers.authorization = `Bearer ${header}`;
    return new Promise((resolve) => {
      authenticator.authenticate('api-key', { session: false }, (err: unknown, client: AuthenticatedClient | false) => {
        resolve(err ? false : client);
      })(req, res, () => resolve(false));
    });
  };
}
