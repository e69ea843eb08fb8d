import type { Request, Response } from 'express';
import type { Context } from 'openapi-backend';
import { pgPagePool } from '../../staging/create-db';
import type { HandlerDeps } from '../handler-context';

export function getHealth() {
  return async function handleGetHealth(_c: Context, _req: Request, res: Response) {
    res.json({ status: 'ok' });
  };
}

/** Ready when the staging database answers a query, on each of its Postgres pools (knex's and the list pages'). */
export function getReadiness(deps: HandlerDeps) {
  return async function handleGetReadiness(_c: Context, _req: Request, res: Response) {
    try {
      await Promise.all([deps.db.raw('select 1'), pgPagePool(deps.db)?.rawRows('select 1', [])]);
      res.json({ status: 'ok', database: 'ok' });
    } catch (error) {
      deps.logger.warn({ err: error }, 'readiness check: database unavailable');
      res.status(503).json({ status: 'unavailable', database: 'unreachable' });
    }
  };
}
