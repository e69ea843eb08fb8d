import type { FileRecord } from '../../src/adapters/adapter';

/** The bytes of a binary file's content, however `open()` hands them over (one Buffer, or a stream). */
export async function contentBytes(file: FileRecord): Promise<Buffer> {
  if (file.content.kind !== 'binary') throw new Error(`${file.nativeId} is not binary`);
  const opened = await file.content.open();
  if (Buffer.isBuffer(opened)) return opened;
  const chunks: Buffer[] = [];
  for await (const chunk of opened) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string));
  return Buffer.concat(chunks);
}

/** The HTML of an inline-HTML file, at hand or loaded (`load()`, as the engine would). */
export async function contentHtml(file: FileRecord): Promise<string> {
  if (file.content.kind !== 'html') throw new Error(`${file.nativeId} is not inline HTML`);
  return 'html' in file.content ? file.content.html : file.content.load();
}
