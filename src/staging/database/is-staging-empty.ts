import type { Db } from './create-db';

/** True when no source has staged anything yet (the first start of a fresh install). */
export async function isStagingEmpty(db: Db): Promise<boolean> {
  const [file, user, group] = await Promise.all([db('files').first('id'), db('users').first('id'), db('groups').first('id')]);
  return !file && !user && !group;
}
