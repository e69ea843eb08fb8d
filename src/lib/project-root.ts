import fs from 'node:fs';
import path from 'node:path';

/**
 * The folder holding package.json. Code runs both from `src/` (tests, tsx) and from the compiled
 * `dist/src/`, so shipped assets (the contract, the demo corpus) are found from here, not from
 * `__dirname` directly.
 */
export function projectRoot(from: string = __dirname): string {
  let dir = from;
  for (;;) {
    if (fs.existsSync(path.join(dir, 'package.json'))) return dir;
    const parent = path.dirname(dir);
    if (parent === dir) throw new Error(`No package.json above ${from}`);
    dir = parent;
  }
}
