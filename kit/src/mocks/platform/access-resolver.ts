/**
 * Who may VIEW what, resolved the way the platform does (reference §3.2) over the last ingest:
 * `USER` entries, `GROUP` entries through any chain of nested groups, the `GROUP *` wildcard for
 * every user; only `VIEW` counts, `USER *` grants nothing, inactive users see nothing. A person
 * the gateway does not know (no user with that email) sees only wildcard files.
 * The evaluation itself is the conformance harness's: both are the platform's side.
 */
import { EffectiveAccess, classifyEntry } from 'content-gateway/conformance';
import type { CorpusSnapshot } from './ingest/corpus-snapshot';

export type Viewer = { kind: 'user'; email: string; userIds: string[] } | { kind: 'inactive'; email: string } | { kind: 'unknown'; email: string };

export class AccessResolver {
  private readonly access: EffectiveAccess;

  constructor(private readonly snapshot: CorpusSnapshot) {
    this.access = new EffectiveAccess({
      users: snapshot.users.map((u) => ({ id: u.id, email: u.email, fullName: u.fullName, state: u.state })),
      groups: snapshot.groups.map((g) => ({ id: g.id, name: g.name, members: { entries: g.members } })),
      files: [...snapshot.files.values()].map((f) => ({ id: f.id, name: f.name, status: 'active', permissions: f.permissions })),
    });
  }

  viewer(email: string): Viewer {
    const users = this.access.findUsers(email);
    if (users.length === 0) return { kind: 'unknown', email };
    const active = users.filter((u) => u.active);
    return active.length ? { kind: 'user', email, userIds: active.map((u) => u.id) } : { kind: 'inactive', email };
  }

  /** Whether the person with this email may VIEW the file. */
  canView(email: string, fileId: string): boolean {
    const viewer = this.viewer(email);
    if (viewer.kind === 'inactive') return false;
    if (viewer.kind === 'unknown') return this.isPublic(fileId);
    return this.access.canSee(email, fileId);
  }

  /** Ids of every file the person may VIEW. */
  visibleFileIds(email: string): Set<string> {
    return new Set([...this.snapshot.files.keys()].filter((id) => this.canView(email, id)));
  }

  private isPublic(fileId: string): boolean {
    return (this.snapshot.files.get(fileId)?.permissions ?? []).some((p) => classifyEntry(p) === 'wildcard');
  }
}
