import fs from 'node:fs';
import path from 'node:path';
import { loadRestManifest, parseRestManifest, REST_MANIFEST_SCHEMA } from '../../../src/adapters/rest';

const ROOT = path.join(__dirname, '../../..');
const GUIDE = fs.readFileSync(path.join(ROOT, 'docs/declarative-sources.md'), 'utf8');

/** The YAML blocks of the guide, in order. */
const yamlBlocks = (): string[] => [...GUIDE.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => (m[1] ?? '').replace(/^ {3}/gm, ''));

describe('docs/declarative-sources.md', () => {
  it("starts the walkthrough from a manifest the adapter accepts, and ends on the shipped one's access block", () => {
    const [first, access] = yamlBlocks();
    expect(parseRestManifest(first ?? '', 'the guide').manifest.name).toBe('upstream');
    const shipped = fs.readFileSync(path.join(ROOT, 'manifests/content-gateway.yaml'), 'utf8');
    for (const line of (access ?? '').split('\n').filter((l) => l.trim() !== '')) expect(shipped).toContain(line.trim());
  });

  it('ships manifests that validate', () => {
    for (const file of fs.readdirSync(path.join(ROOT, 'manifests'))) expect(loadRestManifest(path.join(ROOT, 'manifests', file)).manifest.version).toBe(1);
  });

  it('describes every field of the schema', () => {
    const fields = new Set<string>();
    const walk = (node: unknown): void => {
      if (node === null || typeof node !== 'object') return;
      const { properties } = node as { properties?: Record<string, unknown> };
      if (properties) for (const name of Object.keys(properties)) fields.add(name);
      for (const value of Object.values(node)) walk(value);
    };
    walk(REST_MANIFEST_SCHEMA);
    expect(fields.size).toBeGreaterThan(60);
    const missing = [...fields].filter((f) => !GUIDE.includes(`\`${f}`) && !GUIDE.includes(` ${f}`));
    expect(missing).toEqual([]);
  });
});
