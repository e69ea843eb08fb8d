/**
 * `npm run layout`: writes docs/layout.md (the product's rooms and the kit's with their sizes) and
 * the README's block between its layout markers, from the tree itself. `--check` writes nothing
 * and exits 1 when either is not what the tree gives (test/architecture/layout-doc.test.ts runs
 * the same comparison, so neither page can drift).
 */
import fs from 'node:fs';
import path from 'node:path';
import { describeLayout, describeLayoutForReadme, withReadmeLayout } from './describe-layout';

const ROOT = path.join(__dirname, '../..');
const LAYOUT = path.join(ROOT, 'docs/layout.md');
const README = path.join(ROOT, 'README.md');

const wanted = new Map([
  [LAYOUT, describeLayout(ROOT)],
  [README, withReadmeLayout(fs.readFileSync(README, 'utf8'), describeLayoutForReadme(ROOT))],
]);
for (const [file, text] of wanted) {
  const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
  if (current === text) continue;
  if (process.argv.includes('--check')) {
    process.stderr.write(`${path.relative(ROOT, file)} is out of date: run \`npm run layout\`\n`);
    process.exitCode = 1;
  } else {
    fs.writeFileSync(file, text);
    process.stdout.write(`wrote ${path.relative(ROOT, file)}\n`);
  }
}
