// Preloaded (NODE_OPTIONS=--require, see loaded-modules.ts) into a gateway process by the *-loaded-modules tests: at
// exit, writes every module file the process loaded to LOADED_MODULES_DIR/<pid>.json.
const fs = require('node:fs');
const path = require('node:path');

process.on('exit', () => {
  const dir = process.env.LOADED_MODULES_DIR;
  if (dir) fs.writeFileSync(path.join(dir, `${process.pid}.json`), JSON.stringify(Object.keys(require.cache)));
});
