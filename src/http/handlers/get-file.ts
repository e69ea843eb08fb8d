import type { Request, Response } from 'express';
import type { Context } from 'openapi-backend';
import { GatewayError } from '../../errors/gateway-error';
import { isStorableText, UNSTORABLE_TEXT } from '../../lib/is-storable-text';
import { baseUrl, odataContext } from '../base-url';
import { toFileResource } from '../../staging/file-resource';
import type { HandlerDeps } from '../handler-context';
import { MissingIdError } from '../missing-id-error';

/**
 * A path parameter (an id, after raw-id resolution) as handlers look it up; text no staging
 * database can store is refused here, before any query.
 */
export function pathParam(c: Context, name: string): string {
  const value = String(c.request.params[name]);
  if (!isStorableText(value)) throw new GatewayError('INPUT_VALIDATION_FAILED', `The ${name === 'groupId' ? 'group id' : 'id'} ${UNSTORABLE_TEXT}.`);
  return value;
}

export function getFile(deps: HandlerDeps) {
  return async (c: Context, req: Request, res: Response) => {
    const id = pathParam(c, 'id');
    const row = await deps.files.getFile(id);
    if (!row) throw new MissingIdError('File', id);
    res.json({
      '@odata.context': odataContext(baseUrl(req, deps.config.publicBaseUrl), 'Content'),
      value: toFileResource(row, true),
    });
  };
}
