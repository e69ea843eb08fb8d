import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { checkedDocumentText } from '../../src/lib/checked-document-text';
import { initOpenApiBackend } from '../../src/lib/init-openapi-backend';
import { checkedPathOf, loadOpenApiDocument, sha256Of } from '../../src/lib/load-openapi-document';

const OPENAPI = path.join(__dirname, '../../openapi');
const documents = fs.readdirSync(OPENAPI).filter((f) => /\.ya?ml$/i.test(f));

/**
 * A gateway start takes the contract's parsed form from `<name>.checked.json` when it was written
 * from the YAML's very text (`npm run contracts`), and neither parses nor checks it again;
 * otherwise it parses and checks the YAML as before.
 */
describe('the checked form of each OpenAPI document in openapi/', () => {
  it.each(documents)('%s: its .checked.json is what `npm run contracts` writes from it today', async (name) => {
    const file = path.join(OPENAPI, name);
    const written = fs.existsSync(checkedPathOf(file)) ? fs.readFileSync(checkedPathOf(file), 'utf8') : '(missing)';
    expect({ name, inSync: written === (await checkedDocumentText(file)) }).toEqual({ name, inSync: true });
    expect(loadOpenApiDocument(file)).toEqual({ document: YAML.parse(fs.readFileSync(file, 'utf8')), checked: true });
  });
});

describe('loadOpenApiDocument', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-checked-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const yaml = "openapi: 3.0.3\ninfo: { title: fork, version: '1' }\npaths: {}\n";
  // A file of its own for each case: documents are cached per file and text.
  const write = (text: string, checked?: { sourceSha256: string; document: unknown }, name = 'contract.yaml'): string => {
    const file = path.join(dir, name);
    fs.writeFileSync(file, text);
    if (checked) fs.writeFileSync(checkedPathOf(file), JSON.stringify(checked));
    return file;
  };

  it('takes the checked form only when it was written from this very text', () => {
    const marked = { openapi: '3.0.3', info: { title: 'from the checked file', version: '1' }, paths: {} };
    expect(loadOpenApiDocument(write(yaml, { sourceSha256: sha256Of(yaml), document: marked }))).toEqual({ document: marked, checked: true });
  });

  it('parses (and leaves to be checked) a YAML edited since, or one with no checked form', () => {
    const edited = yaml.replace("version: '1'", "version: '2'");
    const stale = write(edited, { sourceSha256: sha256Of(yaml), document: { openapi: '3.0.3', info: { title: 'stale' } } });
    expect(loadOpenApiDocument(stale)).toEqual({ document: YAML.parse(edited), checked: false });
    const alone = write(edited, undefined, 'alone.yaml');
    expect(fs.existsSync(checkedPathOf(alone))).toBe(false);
    expect(loadOpenApiDocument(alone)).toEqual({ document: YAML.parse(edited), checked: false });
  });

  it('a broken document is refused when not checked, and never gets a checked form', async () => {
    const broken = "openapi: 3.0.3\ninfo: { title: x, version: '1' }\npaths: { /a: { get: { responses: nope } } }\n";
    const file = write(broken);
    const loaded = loadOpenApiDocument(file);
    expect(loaded.checked).toBe(false);
    await expect(initOpenApiBackend(loaded.document, {}, loaded.checked)).rejects.toThrow();
    // Told it is checked, the same document is loaded unchecked: a backend made for a checked load
    // is never handed to a load that must check.
    await expect(initOpenApiBackend(YAML.parse(broken), {}, true)).resolves.toBeDefined();
    await expect(initOpenApiBackend(YAML.parse(broken), {}, false)).rejects.toThrow();
    await expect(checkedDocumentText(file)).rejects.toThrow();
  });
});
