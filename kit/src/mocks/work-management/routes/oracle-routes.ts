/**
 * The oracle's private HTTP face (bearer token required, no hostility):
 *
 *   GET /_oracle/visibility?type=task|attachment|story|project&gid=<gid>[&explain=true]
 *     → {data: {type, gid, visible_to: [user gid…], reasons?: {user gid: [why…]}}}; 404 if absent
 *   GET /_oracle/visibility/all?type=task|attachment|story|project[&offset=0][&limit=1000]
 *     → {data: [{type, gid, visible_to}], total, next_offset: number | null}  (limit ≤ 10,000)
 *   GET /_oracle/users?workspace=<gid>
 *     → {data: [active user gid…]}
 */
import express, { type Request, type Response } from 'express';
import { errorBody } from '../api/api-error';
import type { MockContext } from '../mock-context';
import { ORACLE_TYPES, type OracleObjectType } from '../visibility-oracle';

function typeOf(req: Request, res: Response): OracleObjectType | undefined {
  const type = req.query.type;
  if (typeof type === 'string' && (ORACLE_TYPES as readonly string[]).includes(type)) return type as OracleObjectType;
  res.status(400).json(errorBody(`type: must be one of ${ORACLE_TYPES.join(', ')}`));
  return undefined;
}

export function oracleRouter(ctx: MockContext): express.Router {
  const router = express.Router();
  router.get('/visibility', (req, res) => {
    const type = typeOf(req, res);
    if (!type) return;
    const gid = typeof req.query.gid === 'string' ? req.query.gid : '';
    const reasons = ctx.oracle.explain(type, gid);
    if (!reasons) {
      res.status(404).json(errorBody(`${type}: Unknown object: ${gid}`));
      return;
    }
    const visibleTo = ctx.oracle.visibleTo(type, gid) ?? [];
    res.json({ data: { type, gid, visible_to: visibleTo, ...(req.query.explain === 'true' ? { reasons: Object.fromEntries(reasons) } : {}) } });
  });
  router.get('/visibility/all', (req, res) => {
    const type = typeOf(req, res);
    if (!type) return;
    const offset = Math.max(0, Number(req.query.offset ?? 0) || 0);
    const limit = Math.min(10_000, Math.max(1, Number(req.query.limit ?? 1000) || 1000));
    const gids = ctx.oracle.gids(type);
    const page = ctx.oracle.many(type, gids.slice(offset, offset + limit));
    res.json({
      data: page.map((v) => ({ type: v.type, gid: v.gid, visible_to: v.visibleTo })),
      total: gids.length,
      next_offset: offset + limit < gids.length ? offset + limit : null,
    });
  });
  router.get('/users', (req, res) => {
    const workspace = typeof req.query.workspace === 'string' ? req.query.workspace : '';
    if (!ctx.store.indexes.workspaces.has(workspace)) {
      res.status(404).json(errorBody(`workspace: Unknown object: ${workspace}`));
      return;
    }
    res.json({ data: ctx.oracle.activeUsers(workspace) });
  });
  return router;
}
