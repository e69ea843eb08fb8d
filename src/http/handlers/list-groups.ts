import type { Request, Response } from 'express';
import type { Context } from 'openapi-backend';
import { groupsCollection } from '../collections';
import { parseJsonObject } from '../../lib/parse-json-object';
import type { HandlerDeps } from '../handler-context';
import { serveCollection } from '../serve-collection';

export function listGroups(deps: HandlerDeps) {
  return function handleListGroups(c: Context, req: Request, res: Response) {
    return serveCollection(deps, req, res, c.request.query, {
      spec: groupsCollection,
      set: 'Groups',
      required: ['id'],
      scope: 'groups',
      load: (page) => deps.identities.listGroups(page),
      toWire: (row) => {
        const metadata = parseJsonObject(row.metadata);
        return {
          id: row.id,
          ...(row.name ? { name: row.name } : {}),
          ...(row.created_at ? { created_datetime: row.created_at } : {}),
          last_modified_datetime: row.modified_at,
          ...(metadata ? { metadata } : {}),
        };
      },
    });
  };
}
