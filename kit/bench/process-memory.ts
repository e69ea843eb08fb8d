import fs from 'node:fs';

/** A process's resident memory, in bytes, from Linux's /proc/<pid>/status. */
export interface ProcessMemory {
  /** VmRSS: everything resident, shared file pages included. */
  rss: number;
  /**
   * RssAnon: the process's own memory (JS heaps of every thread, native allocations, JIT code,
   * stacks). Leaves out file-backed pages (the node binary, libraries, SQLite's memory-mapped
   * database), which are the OS page cache: shared, and reclaimed under pressure.
   */
  anon: number;
  /** RssFile: resident file-backed pages. */
  file: number;
}

/** `pid`'s memory (default this process), or undefined where /proc has no such figures. */
export function processMemory(pid: number | 'self' = 'self'): ProcessMemory | undefined {
  try {
    const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string): number | undefined => {
      const at = new RegExp(`^${field}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1];
      return at === undefined ? undefined : Number(at) * 1024;
    };
    const [rss, anon, file] = [kb('VmRSS'), kb('RssAnon'), kb('RssFile')];
    return rss === undefined || anon === undefined || file === undefined ? undefined : { rss, anon, file };
  } catch {
    return undefined;
  }
}
