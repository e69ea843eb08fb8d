/**
 * `npm run contracts`: writes `<name>.checked.json` beside each OpenAPI document in openapi/ (its
 * parsed form and the SHA-256 of its YAML, once `validateDefinition()` passed on it), so a gateway
 * start neither parses nor checks the contract again. Run it after editing a document; until
 * then the gateway parses and checks the YAML at every start, and
 * test/unit/checked-contracts.test.ts fails. `--check` writes nothing and exits 1 when a file is
 * not what the document gives.
 */
import fs from 'node:fs';
import path from 'node:path';
import { checkedDocumentText } from 'content-gateway/lib';

const OPENAPI = path.join(__dirname, '../../openapi');

async function main(): Promise<void> {
  for (const name of fs.readdirSync(OPENAPI).filter((f) => /\.ya?ml$/i.test(f))) {
    const file = path.join(OPENAPI, name);
    const target = file.replace(/\.ya?ml$/i, '') + '.checked.json';
    const text = await checkedDocumentText(file);
    const current = fs.existsSync(target) ? fs.readFileSync(target, 'utf8') : '';
    if (current === text) continue;
    if (process.argv.includes('--check')) {
      process.stderr.write(`${path.relative(process.cwd(), target)} is out of date: run \`npm run contracts\`\n`);
      process.exitCode = 1;
    } else {
      fs.writeFileSync(target, text);
      process.stdout.write(`wrote ${path.relative(process.cwd(), target)}\n`);
    }
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
});
