import type { Request, Response } from 'express';
import type { Context } from 'openapi-backend';
import { membersCollection } from '../collections';
import type { HandlerDeps } from '../handler-context';
import { encodedIdPath } from '../id-path-readings';
import { MissingIdError } from '../missing-id-error';
import { pathParam } from '../path-param';
import { serveCollection } from '../serve-collection';

/** Direct members only; a sub-group is a GROUP entry, and the platform resolves the nesting. */
export function listGroupMembers(deps: HandlerDeps) {
  return async function handleListGroupMembers(c: Context, req: Request, res: Response) {
    const groupId = pathParam(c, 'groupId');
    if (!(await deps.identities.groupExists(groupId))) throw new MissingIdError('Group', groupId);
    await serveCollection(deps, req, res, c.request.query, {
      spec: membersCollection,
      set: 'GroupMembers',
      required: ['type', 'id'],
      scope: `members:${groupId}`,
      path: encodedIdPath({ operation: 'listGroupMembers', id: groupId }),
      load: (page) => deps.identities.listMembers(groupId, page),
      toWire: (row) => ({ type: row.member_type, id: row.member_id, ...(row.member_name ? { name: row.member_name } : {}) }),
    });
  };
}
