import type { Request, Response } from 'express';
import type { Context } from 'openapi-backend';
import { pingDb } from '../../staging/create-db';
import type { HandlerDeps } from '../handler-context';

export function getHealth() {
  return async function handleGetHealth(_c: Context, _req: Request, res: Response) {
    res.json({ status: 'ok' });
  };
}

/** Ready when the staging database answers a query on each of its pools (`pingDb`). */
export function getReadiness(deps: HandlerDeps) {
  return async function handleGetReadiness(_c: Context, _req: Request, res: Response) {
    try {
      await pingDb(deps.db);
      res.json({ status: 'ok', database: 'ok' });
    } catch (error) {
      deps.logger.warn({ err: error }, 'readiness check: database unavailable');
      res.status(503).json({ status: 'unavailable', database: 'unreachable' });
    }
  };
}
