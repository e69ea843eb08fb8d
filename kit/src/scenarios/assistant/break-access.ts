import express, { type Request, type Response } from 'express';

/** Ways the scenario can break access on purpose, to show that its leak counter fails. */
export type AccessBreak = 'wildcard' | 'nobody';

type Permission = { type: 'GROUP' | 'USER'; id: string; action: 'VIEW' };

/**
 * A front for the real gateway that serves every file's access list as `permissions`, so
 * everything else it serves is the real thing.
 */
function servingEveryAccessListAs(permissions: Permission[]): (gateway: express.Express) => express.Express {
  const serve = (req: Request, res: Response): void => {
    const base = `${req.protocol}://${req.get('host') ?? 'localhost'}`;
    res.json({ '@odata.context': `${base}/v1/$metadata#permissions`, value: { permissions } });
  };
  return (gateway) => {
    const front = express();
    front.disable('x-powered-by');
    front.get('/v1/files/:id/permissions', serve);
    front.use(gateway);
    return front;
  };
}

/** A gateway that serves every access list empty: nobody may see anything (the under-sharing bug). */
export const nobodyGateway = servingEveryAccessListAs([]);

/**
 * A gateway that serves every file's access list as the wildcard (`GROUP *`, everyone may VIEW):
 * the classic over-sharing bug.
 */
export const wildcardGateway = servingEveryAccessListAs([{ type: 'GROUP', id: '*', action: 'VIEW' }]);

export function breakAccess(how: AccessBreak | undefined): ((gateway: express.Express) => express.Express) | undefined {
  return how === 'wildcard' ? wildcardGateway : how === 'nobody' ? nobodyGateway : undefined;
}
