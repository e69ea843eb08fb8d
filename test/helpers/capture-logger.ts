import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/logging/create-logger';

export interface CapturedLogger {
  logger: Logger;
  /** Every line logged so far, parsed. */
  lines(): Array<Record<string, unknown> & { level: number; msg: string }>;
  /** Lines at warn level or above. */
  warnings(): string[];
}

/** A real pino logger writing into memory, so tests can assert what an operator would read. */
export function captureLogger(level = 'debug'): CapturedLogger {
  const raw: string[] = [];
  const destination = new Writable({
    write(chunk: Buffer, _enc, done) {
      raw.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((l) => l.trim() !== ''),
      );
      done();
    },
  });
  const logger = createLogger({ level, destination });
  const lines = () => raw.map((l) => JSON.parse(l) as Record<string, unknown> & { level: number; msg: string });
  return {
    logger,
    lines,
    warnings: () =>
      lines()
        .filter((l) => l.level >= 40)
        .map((l) => l.msg),
  };
}
