import type { Handler } from 'openapi-backend';
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

/** One handler per `operationId` of the contract; a test fails if the two lists drift apart. */
export function operationHandlers(deps: HandlerDeps) {
  return {
    listFiles: listFiles(deps),
    getFile: getFile(deps),
    downloadFile: downloadFile(deps),
    listFilePermissions: listFilePermissions(deps),
    getPermissionsMetadata: getPermissionsMetadata(deps),
    listUsers: listUsers(deps),
    listGroups: listGroups(deps),
    listGroupMembers: listGroupMembers(deps),
    getHealth: getHealth(),
    getReadiness: getReadiness(deps),
  } satisfies Record<string, Handler>;
}

export type OperationId = keyof ReturnType<typeof operationHandlers>;
