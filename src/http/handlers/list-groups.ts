import type { Request, Response } from 'express';
import type { Context } from 'openapi-backend';
import { groupsCollection } from '../collections';
import type { HandlerDeps } from '../handler-context';
import { serveCollection } from '../serve-collection';
import { toGroupResource } from '../../wire/identity-resources';

export function listGroups(deps: HandlerDeps) {
  return function handleListGroups(c: Context, req: Request, res: Response) {
    return serveCollection(deps, req, res, c.request.query, {
      spec: groupsCollection,
      set: 'Groups',
      required: ['id'],
      scope: 'groups',
      load: (page) => deps.identities.listGroups(page),
      toWire: toGroupResource,
    });
  };
}
