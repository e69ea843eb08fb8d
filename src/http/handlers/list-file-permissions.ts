import type { Request, Response } from 'express';
import type { Context } from 'openapi-backend';
import { permissionsCollection } from '../collections';
import type { HandlerDeps } from '../handler-context';
import { encodedIdPath } from '../id-path-readings';
import { MissingIdError } from '../missing-id-error';
import { pathParam } from '../path-param';
import { serveCollection } from '../serve-collection';

export function listFilePermissions(deps: HandlerDeps) {
  return async function handleListFilePermissions(c: Context, req: Request, res: Response) {
    const id = pathParam(c, 'id');
    const file = await deps.files.getFileMeta(id);
    if (!file) throw new MissingIdError('File', id);
    await serveCollection(deps, req, res, c.request.query, {
      spec: permissionsCollection,
      set: 'Permissions',
      required: ['type', 'id', 'action'],
      scope: `permissions:${id}`,
      path: encodedIdPath({ operation: 'listFilePermissions', id }),
      load: (page) => deps.files.listPermissions(id, page),
      toWire: (row) => ({ type: row.principal_type, id: row.principal_id, action: 'VIEW' }),
      wrap: (permissions) => ({ permissions, last_modified_datetime: file.permissions_modified_at ?? file.modified_at }),
    });
  };
}
