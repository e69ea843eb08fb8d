import v8 from 'node:v8';
import vm from 'node:vm';

let gc: (() => void) | undefined = (globalThis as { gc?: () => void }).gc;

/**
 * A full garbage collection before a memory reading. `npm run bench` starts without
 * `--expose-gc`, so the flag is switched on at run time and `gc` fetched from a fresh context
 * (a documented V8 escape hatch); returns false if neither way gave a collector.
 */
export function forceGc(): boolean {
  if (!gc) {
    try {
      v8.setFlagsFromString('--expose-gc');
      gc = vm.runInNewContext('gc') as () => void;
    } catch {
      gc = undefined;
    }
  }
  if (!gc) return false;
  gc();
  gc();
  return true;
}
