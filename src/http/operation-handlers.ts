import type { Handler } from 'openapi-backend';
import { fallBackToOtherReadings } from './fall-back-to-other-readings';
import type { HandlerDeps } from './handler-context';
import { downloadFile } from './handlers/download-file';
import { getFile } from './handlers/get-file';
import { getPermissionsMetadata } from './handlers/get-permissions-metadata';
import { getHealth, getReadiness } from './handlers/health';
import { listFilePermissions } from './handlers/list-file-permissions';
import { listFiles } from './handlers/list-files';
import { listGroupMembers } from './handlers/list-group-members';
import { listGroups } from './handlers/list-groups';
import { listUsers } from './handlers/list-users';

/**
 * One handler per `operationId` of the contract; a test fails if the two lists drift apart. The
 * handlers that take an id fall back to the other readings of a raw path when theirs misses.
 */
export function operationHandlers(deps: HandlerDeps) {
  const byId = fallBackToOtherReadings(
    {
      getFile: getFile(deps),
      downloadFile: downloadFile(deps),
      listFilePermissions: listFilePermissions(deps),
      listGroupMembers: listGroupMembers(deps),
    },
    async (reading) =>
      reading.operation === 'listGroupMembers' ? deps.identities.groupExists(reading.id) : (await deps.files.getFileMeta(reading.id)) !== undefined,
  );
  return {
    listFiles: listFiles(deps),
    ...byId,
    getPermissionsMetadata: getPermissionsMetadata(deps),
    listUsers: listUsers(deps),
    listGroups: listGroups(deps),
    getHealth: getHealth(),
    getReadiness: getReadiness(deps),
  } satisfies Record<string, Handler>;
}

export type OperationId = keyof ReturnType<typeof operationHandlers>;
