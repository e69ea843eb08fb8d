import type { AccessEntry, AccessReconcilingAdapter, AdapterContext, FileRecord, LiveFile, SettleEvent, SettleRequest } from '../../src/adapters/adapter';
import { ScriptedSource } from './scripted-adapter';

/**
 * A scripted source whose change feed can lose changes (`silently`), with access reconciliation:
 * `liveFiles` lists every file but those marked `unlistable` (as a source lists only part of its
 * files cheaply), those in `listedUnresolvable` as unresolved, those in `listedUnreadable` as
 * unreadable, and `settle` answers the way a careful adapter does: an unlisted file that
 * exists is `live` (or read whole, with `readUnlisted`), one that is gone is deleted (or, with
 * `quietAboutGone`, left unanswered), missing files and files whose access changed are read.
 */
export class ReconcilingSource extends ScriptedSource implements AccessReconcilingAdapter<{ position: number }> {
  readonly unlistable = new Set<string>();
  readonly requests: SettleRequest[] = [];
  listings = 0;
  quietAboutGone = false;
  readUnlisted = false;
  /** Unlisted files whose access rule cannot be resolved whole: settle answers a failure with what it still grants (`accessAtMost`). */
  readonly unresolvable = new Map<string, AccessEntry[]>();
  /** Files `liveFiles` lists as unresolved (their access rule cannot be resolved whole), with what they still grant (`accessAtMost`). */
  readonly listedUnresolvable = new Map<string, AccessEntry[]>();
  /** Files `liveFiles` lists as unreadable (their access could not be read now, a transient failure). */
  readonly listedUnreadable = new Set<string>();
  /** Thrown by `liveFiles` after this many files (a listing that fails part way). */
  failListingAfter?: number;

  /** Changes the source without a trace in the change feed (lost events). */
  silently(change: (source: this) => void): this {
    const before = this.log.length;
    change(this);
    this.log.splice(before);
    return this;
  }

  async *liveFiles(_ctx: AdapterContext): AsyncIterable<LiveFile> {
    this.listings++;
    let n = 0;
    for (const file of this.files.values()) {
      if (this.listedUnreadable.has(file.nativeId)) {
        const unreadable = new Error(`${file.nativeId}: access request answered 503`);
        yield { nativeId: file.nativeId, unreadable, ...(file.attributes ? { attributes: file.attributes } : {}) };
        continue;
      }
      const atMost = this.listedUnresolvable.get(file.nativeId);
      if (atMost) {
        const unresolved = new Error(`${file.nativeId}: access rule unresolvable`);
        yield { nativeId: file.nativeId, unresolved, accessAtMost: atMost, ...(file.attributes ? { attributes: file.attributes } : {}) };
        continue;
      }
      // A file that cannot be read is not listed either, as an adapter leaves out what it cannot read.
      if (this.unlistable.has(file.nativeId) || this.failing.has(file.nativeId)) continue;
      if (this.failListingAfter !== undefined && n++ >= this.failListingAfter) throw new Error('listing failed part way');
      // The file as listed goes with it, for `settle` to read from should staging lack it.
      yield { nativeId: file.nativeId, access: file.access, record: file };
    }
  }

  async *settle(_ctx: AdapterContext, request: SettleRequest): AsyncIterable<SettleEvent> {
    this.requests.push(request);
    for (const id of request.unlisted) {
      const file = this.files.get(id);
      const atMost = this.unresolvable.get(id);
      if (!file) {
        if (!this.quietAboutGone) yield { type: 'delete', kind: 'file', nativeId: id };
      } else if (atMost) yield { type: 'failure', kind: 'file', nativeId: id, error: new Error(`${id}: access rule unresolvable`), accessAtMost: atMost };
      else yield this.readUnlisted ? { type: 'file', file } : { type: 'live', file: { nativeId: id, access: file.access } };
    }
    // A missing file as it was listed (the engine hands back its record), as an adapter does that keeps no listed records.
    for (const id of request.missing) {
      const file = request.records?.get(id) as FileRecord | undefined;
      if (file) yield { type: 'file', file };
    }
    for (const id of request.accessChanged) {
      const file = this.files.get(id);
      if (file) yield { type: 'file', file };
    }
  }
}
