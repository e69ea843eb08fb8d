/**
 * `GET /workspaces/{gid}/audit_log_events`: the read-only audit log (rules/audit-log.ts). Pages
 * hold at most `limit` (1–100) events, or 1,000 without it; `next_page` is always there and
 * continues after what was scanned, so polling it returns only newer events.
 */
import { nextPath, parseLimit, queryKey } from '../api/pagination';
import { ok, type Route } from '../api/route-table';
import { AUDIT_PAGE_DEFAULT, assertAuditLogReader, matchesAudit, parseAuditFilters, renderAuditEvent, type AuditLogEvent } from '../rules/audit-log';
import { requireWorkspace } from './route-helpers';

/** Tokens carry the position in the whole log; this stands in for the gid the shared signer wants. */
const POSITION_MARK = 'audit';

export const auditLogRoutes: Route[] = [
  {
    method: 'GET',
    path: '/workspaces/:workspace_gid/audit_log_events',
    scope: 'audit_log_events:read',
    handler: (req, ctx) => {
      const ws = requireWorkspace(ctx, req.params.workspace_gid);
      assertAuditLogReader(ws, req.caller.user, ctx.tokens.grantOf(req.caller.token)?.kind);
      const filters = parseAuditFilters(req.query);
      const asked = parseLimit(req);
      const limit = asked ?? AUDIT_PAGE_DEFAULT;
      const key = queryKey(req);
      const log = ctx.store.indexes.audit.all();
      let position = req.query.offset === undefined ? 0 : ctx.pageTokens.verify(req.query.offset, key).index;
      const page: AuditLogEvent[] = [];
      for (; position < log.length && page.length < limit; position++) {
        const e = log[position] as AuditLogEvent;
        if (matchesAudit(e, ws.gid, filters)) page.push(e);
      }
      const token = ctx.pageTokens.issue(key, position, POSITION_MARK);
      const path = nextPath(req, token, asked);
      return ok(page.map(renderAuditEvent), { next_page: { offset: token, path, uri: `${req.apiBase}${path}` } });
    },
  },
];
