import type { Request, Response } from 'express';
import type { Context } from 'openapi-backend';
import { baseUrl, odataContext } from '../base-url';
import type { HandlerDeps } from '../handler-context';

/** The only model the platform supports: per-file access lists. */
export function getPermissionsMetadata(deps: HandlerDeps) {
  return async function handleGetPermissionsMetadata(_c: Context, req: Request, res: Response) {
    res.json({
      '@odata.context': odataContext(baseUrl(req, deps.config.publicBaseUrl), 'PermissionsMetadata'),
      model: 'resource_permission',
    });
  };
}
