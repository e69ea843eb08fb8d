import type { Request, Response } from 'express';
import type { Context } from 'openapi-backend';
import { filesCollection } from '../collections';
import { toFileResource } from '../../wire/file-resource';
import type { HandlerDeps } from '../handler-context';
import type { FileField } from '../../staging/repositories/files-repository';
import type { PageRequest } from '../../staging/read-path/page-query';
import { serveCollection } from '../serve-collection';

export function listFiles(deps: HandlerDeps) {
  const includeBody = deps.config.includeHtmlBodyInList;
  return function handleListFiles(c: Context, req: Request, res: Response) {
    return serveCollection(deps, req, res, c.request.query, {
      spec: filesCollection,
      set: 'Content',
      required: ['id', 'name', 'external_url', 'last_modified_datetime', 'status', 'content'],
      scope: 'files',
      ...(includeBody ? {} : { loadStored: (page: PageRequest<FileField>) => deps.files.listStoredFiles(page) }),
      load: (page) => deps.files.listFiles(page, { includeBody }),
      toWire: (row) => toFileResource(row, includeBody),
    });
  };
}
