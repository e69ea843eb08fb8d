import { throwIfAborted } from '../lib/abort-error';
import type { GroupRecord, SyncEvent, UserRecord } from './adapter';

/** A directory an adapter holds in memory, as events: users, then groups, the signal checked before each one. */
export function* directoryEvents(signal: AbortSignal, directory: { users: readonly UserRecord[]; groups: readonly GroupRecord[] }): Generator<SyncEvent> {
  for (const user of directory.users) {
    throwIfAborted(signal);
    yield { type: 'user', user };
  }
  for (const group of directory.groups) {
    throwIfAborted(signal);
    yield { type: 'group', group };
  }
}
