import type { Request, Response } from 'express';
import type { Context } from 'openapi-backend';
import { baseUrl, odataContext } from '../base-url';
import { toFileResource } from '../../wire/file-resource';
import type { HandlerDeps } from '../handler-context';
import { MissingIdError } from '../missing-id-error';
import { pathParam } from '../path-param';

export function getFile(deps: HandlerDeps) {
  return async function handleGetFile(c: Context, req: Request, res: Response) {
    const id = pathParam(c, 'id');
    const row = await deps.files.getFile(id);
    if (!row) throw new MissingIdError('File', id);
    res.json({
      '@odata.context': odataContext(baseUrl(req, deps.config.publicBaseUrl), 'Content'),
      value: toFileResource(row, true),
    });
  };
}
