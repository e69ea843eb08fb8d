import crypto from 'node:crypto';

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';

/** `length` random base-62 characters (rejection sampling, so every character is equally likely). */
export function base62(length = 21): string {
  let out = '';
  while (out.length < length) {
    for (const byte of crypto.randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

export type IdPrefix = 'msg' | 'conv' | 'resp' | 'cite' | 'cb' | 'pr' | 'pc' | 'int' | 'modal';

/** A base-62 identifier prefixed by a short resource type (`msg_32bt8vagXAoRwRLIdI2Oj`). */
export function newId(prefix: IdPrefix): string {
  return `${prefix}_${base62()}`;
}

/** The pattern of an id with `prefix`. */
export function idPattern(prefix: IdPrefix): RegExp {
  return new RegExp(`^${prefix}_[0-9A-Za-z]+$`);
}
