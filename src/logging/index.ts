export { createLogger } from './create-logger';
export type { Logger } from './create-logger';
