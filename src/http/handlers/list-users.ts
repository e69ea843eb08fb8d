import type { Request, Response } from 'express';
import type { Context } from 'openapi-backend';
import { usersCollection } from '../collections';
import { parseJsonObject } from '../../lib/parse-json-object';
import type { HandlerDeps } from '../handler-context';
import { serveCollection } from '../serve-collection';

export function listUsers(deps: HandlerDeps) {
  return function handleListUsers(c: Context, req: Request, res: Response) {
    return serveCollection(deps, req, res, c.request.query, {
      spec: usersCollection,
      set: 'Users',
      required: ['id', 'primary_email_addr', 'state'],
      scope: 'users',
      load: (page) => deps.identities.listUsers(page),
      toWire: (row) => {
        const metadata = parseJsonObject(row.metadata);
        return {
          id: row.id,
          primary_email_addr: row.email,
          ...(row.full_name ? { full_name: row.full_name } : {}),
          state: row.state,
          last_modified_datetime: row.modified_at,
          ...(metadata ? { metadata } : {}),
        };
      },
    });
  };
}
