import { ADAPTER_NAME } from '../adapters/adapter';
import { ScaffoldError } from './scaffold-error';

/**
 * Pure rendering of `templates/adapter/`: name checks, the name's case variants, and knex-style
 * `<%= key %>` interpolation (no other template syntax, so the templates' own `${...}` template
 * literals pass through untouched). Reading and writing files is `scaffold-adapter.ts`'s job.
 */

/** The placeholders a template may use, for `acme-wiki`. */
export interface AdapterNames {
  /** `acme-wiki`: folder, file prefix, adapter name and id prefix. */
  name: string;
  /** `AcmeWiki`: types and classes. */
  Name: string;
  /** `acmeWiki`: values (`acmeWikiAdapterFactory`). */
  camelName: string;
  /** `ACME_WIKI`: environment variables (`ACME_WIKI_BASE_URL`). */
  CONSTANT_NAME: string;
  /** `Acme Wiki`: prose. */
  title: string;
}

/** Every template, and where it is rendered to (relative to the project root; the path is a template too). */
export const ADAPTER_TEMPLATE_FILES: ReadonlyArray<{ template: string; target: string }> = [
  { template: 'index.ts.tmpl', target: 'src/adapters/<%= name %>/index.ts' },
  { template: 'adapter-factory.ts.tmpl', target: 'src/adapters/<%= name %>/<%= name %>-adapter-factory.ts' },
  { template: 'adapter.ts.tmpl', target: 'src/adapters/<%= name %>/<%= name %>-adapter.ts' },
  { template: 'client.ts.tmpl', target: 'src/adapters/<%= name %>/<%= name %>-client.ts' },
  { template: 'mapping.ts.tmpl', target: 'src/adapters/<%= name %>/<%= name %>-mapping.ts' },
  { template: 'config.ts.tmpl', target: 'src/adapters/<%= name %>/<%= name %>-config.ts' },
  { template: 'example-source.ts.tmpl', target: 'src/adapters/<%= name %>/<%= name %>-example-source.ts' },
  { template: 'README.md.tmpl', target: 'src/adapters/<%= name %>/README.md' },
  // Scaffolds ship with the shared contract suite wired in (DESIGN §6.8).
  { template: 'contract.test.ts.tmpl', target: 'test/contract/<%= name %>.contract.test.ts' },
];

/** Why `name` cannot name an adapter, or undefined when it can. */
export function adapterNameProblem(name: string): string | undefined {
  if (!ADAPTER_NAME.test(name)) {
    return `"${name}" is not a valid adapter name: use 1 to 32 lower-case letters, digits and dashes, starting with a letter (e.g. "acme-wiki"). It becomes the id prefix of everything the adapter serves.`;
  }
  // Stricter than ADAPTER_NAME so every case variant is a clean identifier (ACME__WIKI_TOKEN, AcmeWiki-).
  if (name.endsWith('-') || name.includes('--')) {
    return `"${name}" is not a valid adapter name: dashes must separate words (no trailing or doubled dash).`;
  }
  return undefined;
}

/** The case variants of a valid name; throws ScaffoldError for an invalid one. */
export function adapterNames(name: string): AdapterNames {
  const problem = adapterNameProblem(name);
  if (problem) throw new ScaffoldError(problem);
  const words = name.split('-');
  const capitalised = words.map((w) => w.charAt(0).toUpperCase() + w.slice(1));
  return {
    name,
    Name: capitalised.join(''),
    camelName: (words[0] ?? '') + capitalised.slice(1).join(''),
    CONSTANT_NAME: words.map((w) => w.toUpperCase()).join('_'),
    title: capitalised.join(' '),
  };
}

const PLACEHOLDER = /<%=\s*([A-Za-z_][A-Za-z0-9_]*)\s*%>/g;

/** Interpolates `<%= key %>`; an unknown key or any other `<%` syntax is a template bug and throws. */
export function renderTemplate(template: string, names: AdapterNames, templateName = 'template'): string {
  const values: Readonly<Record<string, string>> = { ...names };
  const out = template.replace(PLACEHOLDER, (_match, key: string) => {
    const value = values[key];
    if (value === undefined) throw new Error(`${templateName}: unknown placeholder <%= ${key} %> (known: ${Object.keys(values).join(', ')})`);
    return value;
  });
  const leftover = out.indexOf('<%');
  if (leftover !== -1)
    throw new Error(`${templateName}: unsupported template syntax near "${out.slice(leftover, leftover + 20)}" (only <%= key %> is supported)`);
  return out;
}

/** Renders every template of `ADAPTER_TEMPLATE_FILES`; `templates` maps a template file name to its text. */
export function renderAdapterTemplates(templates: ReadonlyMap<string, string>, names: AdapterNames): Array<{ path: string; content: string }> {
  return ADAPTER_TEMPLATE_FILES.map(({ template, target }) => {
    const text = templates.get(template);
    if (text === undefined) throw new Error(`templates/adapter/${template} is missing`);
    return { path: renderTemplate(target, names, 'target path'), content: renderTemplate(text, names, template) };
  });
}
