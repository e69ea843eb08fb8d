import type { Request, Response } from 'express';
import type { Context } from 'openapi-backend';
import type { HandlerDeps } from '../handler-context';

export function getHealth() {
  return async function handleGetHealth(_c: Context, _req: Request, res: Response) {
    res.json({ status: 'ok' });
  };
}

/** Ready when the staging database answers a query. */
export function getReadiness(deps: HandlerDeps) {
  return async function handleGetReadiness(_c: Context, _req: Request, res: Response) {
    try {
      await deps.db.raw('select 1');
      res.json({ status: 'ok', database: 'ok' });
    } catch (error) {
      deps.logger.warn({ err: error }, 'readiness check: database unavailable');
      res.status(503).json({ status: 'unavailable', database: 'unreachable' });
    }
  };
}
