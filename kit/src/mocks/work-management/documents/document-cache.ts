/** Built attachment documents, most recently used kept; sizes are remembered on the attachment. */
import type { Attachment, WorkManagementStore } from '../model';
import { buildDocument } from './build-document';
import { documentContent } from './document-content';

export class DocumentCache {
  /** Builds finished or under way: concurrent downloads of one attachment share one build. */
  private readonly cache = new Map<string, Promise<Buffer>>();

  constructor(
    private readonly store: WorkManagementStore,
    private readonly max = 64,
  ) {}

  bytes(attachment: Attachment): Promise<Buffer> {
    const kind = attachment.kind;
    if (!kind) return Promise.reject(new Error(`attachment ${attachment.gid} is a link, not a file`));
    const hit = this.cache.get(attachment.gid);
    if (hit) {
      this.cache.delete(attachment.gid);
      this.cache.set(attachment.gid, hit);
      return hit;
    }
    const built = buildDocument(kind, documentContent(this.store, attachment)).then(
      (bytes) => {
        attachment.size = bytes.length;
        return bytes;
      },
      (err: unknown) => {
        this.cache.delete(attachment.gid);
        throw err;
      },
    );
    this.cache.set(attachment.gid, built);
    if (this.cache.size > this.max) {
      const oldest = this.cache.keys().next().value;
      if (oldest !== undefined) this.cache.delete(oldest);
    }
    return built;
  }

  /**
   * The byte size: a number once the document was built, else a promise of it (the document is
   * built once). Rendered bodies may hold the promise; `settleBody` awaits it before sending.
   */
  size(attachment: Attachment): number | null | Promise<number> {
    if (!attachment.kind) return null;
    if (attachment.size !== null) return attachment.size;
    return this.bytes(attachment).then((bytes) => bytes.length);
  }
}
