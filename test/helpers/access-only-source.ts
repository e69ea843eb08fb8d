import type { AccessEntry, AdapterContext, SyncEvent } from '../../src/adapters/adapter';
import { parsePolicy } from '../../src/policies/load-policy';
import { ReconcilingSource } from './reconciling-source';

const user = (nativeId: string): AccessEntry => ({ type: 'USER', nativeId });

/** A policy that lets a user see a document of a level up to their clearance. */
export const CLEARANCE_POLICY = parsePolicy(`version: 1
rules:
  - name: cleared
    allow: user.clearance >= doc.level
`);

/** A reconciling source that access-only runs can work: `permissions` lists its users and groups. */
export class AccessOnlySource extends ReconcilingSource {
  async *permissions(_ctx: AdapterContext): AsyncIterable<SyncEvent> {
    for (const u of this.users.values()) yield { type: 'user', user: u };
    for (const group of this.groups.values()) yield { type: 'group', group };
  }

  /** Ana, Bo and Cy (clearance 2); `doc` (level 1) seen by Ana, Bo and everyone, `other` (level 1) by Ana. */
  static twoDocuments(): AccessOnlySource {
    const s = new AccessOnlySource('src');
    for (const id of ['ana', 'bo', 'cy']) s.putUser({ nativeId: id, email: `${id}@x.example`, active: true, attributes: { clearance: 2 } });
    s.html('doc', '<p>doc</p>', [user('ana'), user('bo'), { type: 'EVERYONE' }], { attributes: { level: 1 } });
    s.html('other', '<p>other</p>', [user('ana')], { attributes: { level: 1 } });
    return s;
  }
}
