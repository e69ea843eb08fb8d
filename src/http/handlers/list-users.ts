import type { Request, Response } from 'express';
import type { Context } from 'openapi-backend';
import { usersCollection } from '../collections';
import type { HandlerDeps } from '../handler-context';
import { serveCollection } from '../serve-collection';
import { toUserResource } from '../../wire/identity-resources';

export function listUsers(deps: HandlerDeps) {
  return function handleListUsers(c: Context, req: Request, res: Response) {
    return serveCollection(deps, req, res, c.request.query, {
      spec: usersCollection,
      set: 'Users',
      required: ['id', 'primary_email_addr', 'state'],
      scope: 'users',
      load: (page) => deps.identities.listUsers(page),
      toWire: toUserResource,
    });
  };
}
