import type { Response } from 'express';
import type { Context, Handler } from 'openapi-backend';
import { isStorableText } from '../lib/is-storable-text';
import { idPathReadings, type IdOperation, type IdReading } from './id-path-readings';
import { rawIdPathOf } from './middleware/resolve-raw-id-path';
import { MissingIdError } from './missing-id-error';

export type IdHandlers = Record<IdOperation, Handler>;

/** The readings of the path as sent that come after the one that missed (none when it is not among them). */
function laterReadings(rawPath: string | undefined, missed: IdReading): IdReading[] {
  const readings = rawPath === undefined ? [] : (idPathReadings(rawPath) ?? []);
  const at = readings.findIndex((r) => r.operation === missed.operation && r.id === missed.id);
  return at < 0 ? [] : readings.slice(at + 1);
}

function withId(c: Context, reading: IdReading): Context {
  const name = reading.operation === 'listGroupMembers' ? 'groupId' : 'id';
  return { ...c, request: { ...c.request, params: { ...c.request.params, [name]: reading.id } } };
}

/**
 * Wraps the handlers of the id routes: when one answers that its id does not exist, the path as
 * the client sent it may have other readings (`idPathReadings`: a raw `/v1/files/a/download` is
 * also the file `a/download`); the first whose id exists is served instead, in the same request
 * (authenticated and counted once). Lookups happen only here, on what would otherwise be a 404.
 */
export function fallBackToOtherReadings(handlers: IdHandlers, exists: (reading: IdReading) => Promise<boolean>): IdHandlers {
  const wrap = (operation: IdOperation): Handler =>
    async function tryOtherReadings(c: Context, req: unknown, res: Response) {
      try {
        return await handlers[operation](c, req, res);
      } catch (error) {
        if (!(error instanceof MissingIdError) || res.headersSent) throw error;
        for (const reading of laterReadings(rawIdPathOf(res), { operation, id: error.id })) {
          // An id no database can hold cannot exist (and must not reach a query).
          if (!isStorableText(reading.id) || !(await exists(reading))) continue;
          res.locals.route = reading.operation;
          return await handlers[reading.operation](withId(c, reading), req, res);
        }
        throw error;
      }
    };
  return {
    getFile: wrap('getFile'),
    downloadFile: wrap('downloadFile'),
    listFilePermissions: wrap('listFilePermissions'),
    listGroupMembers: wrap('listGroupMembers'),
  };
}
