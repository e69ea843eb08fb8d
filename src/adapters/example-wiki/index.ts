export { createExampleWikiAdapter } from './example-wiki-adapter';
export { exampleWikiAdapterFactory } from './example-wiki-adapter-factory';
export { exampleWikiConfigFromEnv, type ExampleWikiConfig } from './example-wiki-config';
