import { spawnModuleWorker } from 'content-gateway/lib';

/** The text of a PDF, extracted in a worker thread (see `pdf-text-worker.ts`). */
export function pdfText(bytes: Buffer, timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const worker = spawnModuleWorker(__filename, 'pdf-text-worker', { workerData: new Uint8Array(bytes) });
    const timer = setTimeout(() => {
      void worker.terminate();
      reject(new Error(`PDF text extraction took more than ${timeoutMs} ms`));
    }, timeoutMs);
    const done = (): void => {
      clearTimeout(timer);
      void worker.terminate();
    };
    worker.once('message', (m: { text?: string; error?: string }) => {
      done();
      if (typeof m.text === 'string') resolve(m.text);
      else reject(new Error(`the PDF could not be read: ${m.error ?? 'unknown error'}`));
    });
    worker.once('error', (error) => {
      done();
      reject(error);
    });
    worker.once('exit', (code) => {
      clearTimeout(timer);
      if (code !== 0) reject(new Error(`the PDF worker exited with code ${code}`));
    });
  });
}
