import express, { type Request, type Response } from 'express';

/** Ways the scenario can break access on purpose, to show that its leak counter fails. */
export type AccessBreak = 'wildcard' | 'nobody';

function serveWildcard(req: Request, res: Response): void {
  const base = `${req.protocol}://${req.get('host') ?? 'localhost'}`;
  res.json({ '@odata.context': `${base}/v1/$metadata#permissions`, value: { permissions: [{ type: 'GROUP', id: '*', action: 'VIEW' }] } });
}

function serveNobody(req: Request, res: Response): void {
  const base = `${req.protocol}://${req.get('host') ?? 'localhost'}`;
  res.json({ '@odata.context': `${base}/v1/$metadata#permissions`, value: { permissions: [] } });
}

/** A gateway that serves every access list empty: nobody may see anything (the under-sharing bug). */
export function nobodyGateway(gateway: express.Express): express.Express {
  const front = express();
  front.disable('x-powered-by');
  front.get('/v1/files/:id/permissions', serveNobody);
  front.use(gateway);
  return front;
}

/**
 * A gateway that serves every file's access list as the wildcard (`GROUP *`, everyone may VIEW):
 * the classic over-sharing bug. Put in front of the real gateway, so everything else it serves
 * is the real thing.
 */
export function wildcardGateway(gateway: express.Express): express.Express {
  const front = express();
  front.disable('x-powered-by');
  front.get('/v1/files/:id/permissions', serveWildcard);
  front.use(gateway);
  return front;
}

export function breakAccess(how: AccessBreak | undefined): ((gateway: express.Express) => express.Express) | undefined {
  return how === 'wildcard' ? wildcardGateway : how === 'nobody' ? nobodyGateway : undefined;
}
