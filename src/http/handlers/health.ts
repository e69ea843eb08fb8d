import type { Request, Response } from 'express';
import type { Context } from 'openapi-backend';
import { DatabaseTimeoutError } from '../../lib/database-unavailable';
import { withDeadline } from '../../lib/with-deadline';
import { pingDb } from '../../staging/database/create-db';
import type { HandlerDeps } from '../handler-context';
import { DATABASE_RETRY_AFTER_SECONDS } from '../middleware/error-handler';

export function getHealth() {
  return async function handleGetHealth(_c: Context, _req: Request, res: Response) {
    res.json({ status: 'ok' });
  };
}

/**
 * Ready when the staging database answers a query on each of its pools (`pingDb`) within
 * `READINESS_TIMEOUT_MS`; otherwise 503 with `Retry-After`, answered at that deadline whatever the
 * database does (a probe must read an answer, not time out).
 */
export function getReadiness(deps: HandlerDeps) {
  return async function handleGetReadiness(_c: Context, _req: Request, res: Response) {
    const ms = deps.config.readinessTimeoutMs;
    try {
      await withDeadline(pingDb(deps.db), ms, () => new DatabaseTimeoutError('the readiness check', ms));
      res.json({ status: 'ok', database: 'ok' });
    } catch (error) {
      deps.logger.warn({ err: error }, 'readiness check: database unavailable');
      res.status(503).set('Retry-After', String(DATABASE_RETRY_AFTER_SECONDS)).json({ status: 'unavailable', database: 'unreachable' });
    }
  };
}
