/**
 * Worker thread: the text of one PDF (unpdf, which loads its PDF.js build as an ES module — done
 * in a worker so it works wherever the simulator runs, test runners' module sandboxes included).
 */
import { parentPort, workerData } from 'node:worker_threads';

async function main(bytes: Uint8Array): Promise<string> {
  const { extractText, getDocumentProxy } = await import('unpdf');
  const pdf = await getDocumentProxy(bytes);
  try {
    const { text } = await extractText(pdf, { mergePages: true });
    return Array.isArray(text) ? text.join('\n') : text;
  } finally {
    await pdf.destroy();
  }
}

main(workerData as Uint8Array).then(
  (text) => parentPort?.postMessage({ text }),
  (error: unknown) => parentPort?.postMessage({ error: error instanceof Error ? error.message : String(error) }),
);
