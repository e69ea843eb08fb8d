import { promises as fs } from 'node:fs';
import path from 'node:path';
import { registerAdapter } from './register-adapter';
import { ADAPTER_TEMPLATE_FILES, adapterNames, renderAdapterTemplates, type AdapterNames } from './render-adapter-template';
import { ScaffoldError } from './scaffold-error';

export interface ScaffoldOptions {
  name: string;
  /** The project to add the adapter to (holds `src/adapters/adapter-registry.ts`). */
  root: string;
  /** Folder of the `*.tmpl` files (the gateway's own `templates/adapter`). */
  templatesDir: string;
}

export interface ScaffoldResult {
  names: AdapterNames;
  /** Created files, relative to the root, `/`-separated. */
  created: string[];
  /** The registry file, relative to the root, and whether it was edited (false: already registered). */
  registry: { path: string; changed: boolean };
}

const REGISTRY = 'src/adapters/adapter-registry.ts';

async function exists(file: string): Promise<boolean> {
  return fs.access(file).then(
    () => true,
    () => false,
  );
}

/**
 * `new-adapter <name>`: renders the adapter templates into `<root>/src/adapters/<name>/` (and its
 * contract test into `<root>/test/contract/`), then registers the adapter's factory. Every check
 * runs before the first write, so a refused request leaves the project untouched; existing files
 * are never overwritten.
 */
export async function scaffoldAdapter(options: ScaffoldOptions): Promise<ScaffoldResult> {
  const names = adapterNames(options.name);
  const root = path.resolve(options.root);
  const adapterDir = path.join(root, 'src', 'adapters', names.name);
  if (await exists(adapterDir)) {
    throw new ScaffoldError(`src/adapters/${names.name}/ already exists in ${root}: pick another name, or remove that folder first.`);
  }
  if (await exists(`${adapterDir}.ts`)) {
    throw new ScaffoldError(
      `"${names.name}" would clash with src/adapters/${names.name}.ts (an import of './${names.name}' resolves to it): pick another name.`,
    );
  }
  const registryPath = path.join(root, REGISTRY);
  const registryText = await fs.readFile(registryPath, 'utf8').catch(() => {
    throw new ScaffoldError(`${registryPath} not found: is ${root} a content-gateway project? Pass its folder with --root.`);
  });
  const registered = registerAdapter(registryText, names, REGISTRY);

  const templates = new Map<string, string>();
  for (const { template } of ADAPTER_TEMPLATE_FILES) {
    const file = path.join(options.templatesDir, template);
    const text = await fs.readFile(file, 'utf8').catch(() => {
      throw new ScaffoldError(`${file} not found: new-adapter runs from a checkout of the gateway's sources (the production image ships no templates).`);
    });
    templates.set(template, text);
  }
  const files = renderAdapterTemplates(templates, names);
  for (const file of files) {
    if (await exists(path.join(root, file.path))) throw new ScaffoldError(`${file.path} already exists in ${root}: remove it first, or pick another name.`);
  }

  for (const file of files) {
    const target = path.join(root, file.path);
    await fs.mkdir(path.dirname(target), { recursive: true });
    await fs.writeFile(target, file.content, { flag: 'wx' });
  }
  if (registered.changed) await fs.writeFile(registryPath, registered.text);
  return { names, created: files.map((f) => f.path), registry: { path: REGISTRY, changed: registered.changed } };
}
