import { GatewayError } from '../errors/gateway-error';

/**
 * NOT_FOUND because no file or group has this id (rather than because the one found cannot be
 * served, such as a download of an HTML file): the signal on which a raw path's other readings
 * are tried.
 */
export class MissingIdError extends GatewayError {
  constructor(
    readonly kind: 'File' | 'Group',
    readonly id: string,
  ) {
    super('NOT_FOUND', `${kind} ${JSON.stringify(id)} not found.`);
    this.name = 'MissingIdError';
  }
}
