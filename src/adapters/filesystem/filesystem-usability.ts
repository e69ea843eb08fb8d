import type { Logger } from '../../logging/create-logger';
import type { TreeEntry } from './filesystem-tree';

/** How many paths a warning names before it only counts. */
const FIRST_PATHS = 5;

/**
 * What a run's files cannot be used for, said once a run (issue 29): files no `_access.yaml` at or
 * above covers (served with an empty access list: readable by nobody), and `file://` external URLs
 * (no base URL set: nobody can open them from the assistant). Counts every walked file, read or not.
 */
export class UsabilityReport {
  private files = 0;
  private uncovered = 0;
  private readonly firstUncovered: string[] = [];

  /** Passes the walk through, noting each file. */
  async *observe(tree: AsyncIterable<TreeEntry>): AsyncGenerator<TreeEntry> {
    for await (const entry of tree) {
      if (entry.kind === 'file') {
        this.files++;
        if (entry.access.ok && entry.access.uncovered) {
          this.uncovered++;
          if (this.firstUncovered.length < FIRST_PATHS) this.firstUncovered.push(entry.nativeId);
        }
      }
      yield entry;
    }
  }

  log(logger: Logger, baseUrl: string | undefined): void {
    if (this.uncovered > 0) {
      logger.warn(
        { files: this.uncovered, first: this.firstUncovered },
        `filesystem: ${this.uncovered} file(s) have no _access.yaml at or above them: served with an empty access list, readable by nobody; add a sidecar to their folder or the root (public: true, groups: [...], users: [...])`,
      );
    }
    if (baseUrl === undefined && this.files > 0) {
      logger.warn(
        { files: this.files, setting: 'FILESYSTEM_BASE_URL' },
        `filesystem: ${this.files} file(s) have file:// external URLs, which nobody can open from the assistant: set FILESYSTEM_BASE_URL to where the files are browsable`,
      );
    }
  }
}
