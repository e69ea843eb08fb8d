import type { Request, Response } from 'express';
import type { Context } from 'openapi-backend';
import { filesCollection } from '../collections';
import { toFileResource } from '../../staging/file-resource';
import type { HandlerDeps } from '../handler-context';
import { RawJson, serveCollection } from '../serve-collection';

export function listFiles(deps: HandlerDeps) {
  const includeBody = deps.config.includeHtmlBodyInList;
  return (c: Context, req: Request, res: Response) =>
    serveCollection(deps, req, res, c.request.query, {
      spec: filesCollection,
      set: 'Content',
      required: ['id', 'name', 'external_url', 'last_modified_datetime', 'status', 'content'],
      scope: 'files',
      load: (page) => deps.files.listFiles(page, { includeBody, stored: !includeBody && page.select === undefined }),
      toWire: (row) => (row.wire_json && !includeBody ? new RawJson(row.wire_json) : toFileResource(row, includeBody)),
    });
}
