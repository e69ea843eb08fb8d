import path from 'node:path';
import type { Command } from 'commander';
import { projectRoot } from '../lib/project-root';
import { scaffoldAdapter } from '../scaffold/scaffold-adapter';
import { ScaffoldError } from '../scaffold/scaffold-error';
import type { Runtime } from './runtime';

export function registerNewAdapterCommand(program: Command, runtime: Runtime): void {
  program
    .command('new-adapter')
    .argument('<name>', 'adapter name, also the id prefix of everything it serves: lower-case letters, digits and dashes, starting with a letter')
    .option('--root <dir>', 'project to add the adapter to (default: this one)')
    .description(
      'Scaffold an adapter: render templates/adapter into src/adapters/<name>/ with its contract test, and register it. For a REST API, try a manifest first (`manifest init`): no code.',
    )
    .addHelpText(
      'after',
      '\nA REST API? A manifest describes it without code, identity and access read fail-closed:\n' +
        '  content-gateway manifest init sources/acme-wiki.yaml   (docs/declarative-sources.md)\n' +
        'Scaffold an adapter when a manifest cannot express the source.\n\n' +
        'The new adapter serves a built-in example dataset until <NAME>_BASE_URL is set, and passes the\n' +
        'shared contract suite as generated. Existing files are never overwritten.\n\nExample:\n  content-gateway new-adapter acme-wiki\n',
    )
    .action(async function (this: Command, name: string, flags: { root?: string }) {
      // The templates ship with this installation; --root only chooses where they are rendered.
      const templatesDir = path.join(projectRoot(), 'templates', 'adapter');
      const root = path.resolve(flags.root ?? projectRoot());
      let result;
      try {
        result = await scaffoldAdapter({ name, root, templatesDir });
      } catch (error) {
        // The message says what to do; the usage text after it would only bury it.
        if (error instanceof ScaffoldError)
          this.showHelpAfterError(false).error(`error: ${error.message}`, { exitCode: 1, code: 'content-gateway.new-adapter' });
        throw error;
      }
      const { names } = result;
      runtime.print(`Created the ${names.name} adapter in ${root}:`);
      for (const file of result.created) runtime.print(`  ${file}`);
      runtime.print(
        result.registry.changed
          ? `Registered ${names.camelName}AdapterFactory in ${result.registry.path}.`
          : `${result.registry.path} already listed ${names.camelName}AdapterFactory.`,
      );
      runtime.print('');
      runtime.print(`A REST API? A manifest may need no code at all: npm run cli -- manifest init sources/${names.name}.yaml`);
      runtime.print('(docs/declarative-sources.md; then remove this adapter again).');
      runtime.print('');
      runtime.print('Next steps:');
      runtime.print(`  1. npx jest test/contract/${names.name}.contract.test.ts   # the example dataset passes the contract suite`);
      runtime.print(`  2. Read src/adapters/example-wiki/ (a whole adapter in five minutes), then src/adapters/${names.name}/README.md;`);
      runtime.print(`     put your source's records and mapping in ${names.name}-mapping.ts`);
      runtime.print(`     and its API in ${names.name}-client.ts.`);
      runtime.print(`  3. Set ${names.CONSTANT_NAME}_BASE_URL and ${names.CONSTANT_NAME}_TOKEN in the environment, then: npm run cli -- sync ${names.name}`);
      runtime.print(`  4. Point the contract test at a fake of your API (as test/helpers/fake-wiki.ts is the wiki's)`);
      runtime.print(`     and delete ${names.name}-example-source.ts.`);
    });
}
