import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describeLayout, describeLayoutForReadme, ROOM_PURPOSES, withReadmeLayout } from '@content-gateway/kit/tools/describe-layout';

/** docs/layout.md and the README's layout block say what the tree holds (`npm run layout` rewrites both). */
const ROOT = path.join(__dirname, '../..');

describe('docs/layout.md and the README follow the tree', () => {
  it('docs/layout.md is what `npm run layout` writes', () => {
    expect(fs.readFileSync(path.join(ROOT, 'docs/layout.md'), 'utf8')).toBe(describeLayout(ROOT));
  });

  it("the README's layout block is what `npm run layout` writes", () => {
    const readme = fs.readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    expect(readme).toBe(withReadmeLayout(readme, describeLayoutForReadme(ROOT)));
  });

  it('a room without a purpose is refused, not left out', () => {
    const tree = fs.mkdtempSync(path.join(os.tmpdir(), 'layout-'));
    try {
      for (const dir of ['src/lib', 'src/unheard-of', 'kit/src/mocks', 'kit/bench', 'kit/tools', 'kit/test']) {
        fs.mkdirSync(path.join(tree, dir), { recursive: true });
        fs.writeFileSync(path.join(tree, dir, 'a.ts'), 'export {};\n');
      }
      expect(() => describeLayout(tree)).toThrow(/no purpose written for src\/unheard-of/);
      expect(ROOM_PURPOSES['src/lib']).toBeDefined();
    } finally {
      fs.rmSync(tree, { recursive: true, force: true });
    }
  });

  it('a room whose folders are described has each of them described, and the page says what they are', () => {
    const tree = fs.mkdtempSync(path.join(os.tmpdir(), 'layout-'));
    try {
      for (const dir of ['src/staging/database', 'kit/src/mocks', 'kit/bench', 'kit/tools', 'kit/test']) {
        fs.mkdirSync(path.join(tree, dir), { recursive: true });
        fs.writeFileSync(path.join(tree, dir, 'a.ts'), 'export {};\n');
      }
      expect(describeLayout(tree)).toContain(`| \`src/staging/database/\` | 1 | < 50 | ${ROOM_PURPOSES['src/staging/database']} |`);
      fs.mkdirSync(path.join(tree, 'src/staging/unheard-of'));
      fs.writeFileSync(path.join(tree, 'src/staging/unheard-of/a.ts'), 'export {};\n');
      expect(() => describeLayout(tree)).toThrow(/no purpose written for src\/staging\/unheard-of/);
    } finally {
      fs.rmSync(tree, { recursive: true, force: true });
    }
  });
});
