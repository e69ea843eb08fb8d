import fs from 'node:fs';
import path from 'node:path';
import type { Command } from 'commander';
import { projectRoot } from '../lib/project-root';
import { adapterNameProblem, adapterNames, renderTemplate } from '../scaffold/render-adapter-template';
import type { Runtime } from './runtime';

/** The starter manifest `manifest init` renders: every section commented, valid against the schema as written. */
export const STARTER_MANIFEST = path.join('templates', 'manifest', 'starter.yaml');

/** The source name a file suggests (`sources/acme-wiki.yaml` → `acme-wiki`), when it is a valid one. */
function nameFromFile(file: string): string {
  const base = path.basename(file).replace(/\.(ya?ml|json)$/i, '');
  return adapterNameProblem(base) === undefined ? base : 'my-source';
}

function readTemplate(): string | undefined {
  try {
    return fs.readFileSync(path.join(projectRoot(), STARTER_MANIFEST), 'utf8');
  } catch {
    return undefined;
  }
}

/** Writes `text` to `file` unless something is there already (checked and written in one step); false when it was. */
function writeNew(file: string, text: string): boolean {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  try {
    fs.writeFileSync(file, text, { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw error;
  }
}

/** `manifest init <file>`: a commented starter manifest to fill in, never over an existing file. */
export function registerManifestInit(manifest: Command, runtime: Runtime): void {
  manifest
    .command('init')
    .argument('<file>', 'where to write the manifest (YAML); refused if it exists')
    .option('--name <name>', "the source's name, the id prefix of everything synced (default: the file's name)")
    .description(
      'Write a commented starter manifest (templates/manifest/starter.yaml) that passes the schema: a REST API with users, groups and documents, to fill in from the top and try with `manifest check`.',
    )
    .action(function initManifest(file: string, flags: { name?: string }) {
      const name = flags.name ?? nameFromFile(file);
      if (adapterNameProblem(name) !== undefined) {
        runtime.print(`error: --name: expected lower-case letters, digits and dashes, starting with a letter (at most 32): ${JSON.stringify(name)}`);
        runtime.setExitCode(1);
        return;
      }
      const names = adapterNames(name);
      const template = readTemplate();
      if (template === undefined) {
        runtime.print(`error: this installation has no ${STARTER_MANIFEST} (it ships with the repository, not the image): run manifest init from a checkout`);
        runtime.setExitCode(1);
        return;
      }
      const text = renderTemplate(template, names, STARTER_MANIFEST);
      if (!writeNew(file, text)) {
        runtime.print(`error: ${file} already exists; refusing to overwrite it (choose another file, or remove it first)`);
        runtime.setExitCode(1);
        return;
      }
      runtime.print(`Wrote a starter manifest to ${file}.`);
      runtime.print('');
      runtime.print('Next steps:');
      runtime.print(`  1. Fill it in from the top: your API's paths, paging, fields and access (docs/declarative-sources.md).`);
      runtime.print(`  2. export ${names.CONSTANT_NAME}_URL=https://... ${names.CONSTANT_NAME}_TOKEN=...   # secrets only in the environment`);
      runtime.print(`  3. npm run cli -- manifest check ${file}   # validates, calls the API, prints documents with their access`);
      runtime.print(`  4. REST_MANIFEST=${file} npm run cli -- sync rest`);
    });
}
