import type { Context } from 'openapi-backend';
import { GatewayError } from '../errors/gateway-error';
import { isStorableText, UNSTORABLE_TEXT } from '../lib/is-storable-text';

/**
 * A path parameter (an id, after raw-id resolution) as handlers look it up; text no staging
 * database can store is refused here, before any query.
 */
export function pathParam(c: Context, name: string): string {
  const value = String(c.request.params[name]);
  if (!isStorableText(value)) throw new GatewayError('INPUT_VALIDATION_FAILED', `The ${name === 'groupId' ? 'group id' : 'id'} ${UNSTORABLE_TEXT}.`);
  return value;
}
