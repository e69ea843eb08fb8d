import Mustache from 'mustache';
import { SUPPORTED_MIME_TYPES, type FileContent, type FileRecord, type SupportedMimeType } from '../adapter';
import { resolveAccess, type AccessDeps } from './rest-access';
import type { ChildDocumentsStream } from './rest-manifest';
import { optionalText, RestRecordError, requiredText } from './rest-records';

const WHAT = 'streams.documents';

/** Mustache over `{ record, detail }`: `{{x}}` HTML-escaped, `{{{x}}}` as it is; no partials. */
function render(template: string, view: { record: unknown; detail?: unknown }): string {
  return Mustache.render(template, view, {});
}

function mimeOf(value: string | undefined, stream: ChildDocumentsStream): SupportedMimeType {
  const mime = value ?? (stream.content.html ? 'text/html' : undefined);
  const found = SUPPORTED_MIME_TYPES.find((m) => m === mime?.split(';')[0]?.trim().toLowerCase());
  if (!found)
    throw new RestRecordError(
      `${WHAT}.map.mime_type: ${mime === undefined ? 'nothing' : JSON.stringify(mime)} is not a type the gateway serves (${SUPPORTED_MIME_TYPES.join(', ')})`,
    );
  return found;
}

/** A document's content: its HTML (rendered now, or when the engine needs it if a version is given) or its bytes, streamed. */
async function contentOf(stream: ChildDocumentsStream, record: unknown, mimeType: SupportedMimeType, deps: AccessDeps): Promise<FileContent> {
  const { expressions, requester } = deps;
  if (mimeType === 'text/html') {
    const html = stream.content.html;
    if (!html) throw new RestRecordError(`${WHAT}.content.html: an HTML document needs it`);
    const detail = async (): Promise<unknown> => {
      if (!html.request) return undefined;
      const reply = await requester.send(html.request, record);
      if (reply === 'ignored') throw new RestRecordError(`${WHAT}.content.html.request: the body request was ignored by a rule; the staged body is kept`);
      return reply.body;
    };
    const version = await optionalText(expressions, html.version, record);
    if (version !== undefined)
      return { kind: 'html', version: `${version}|${html.template}`, load: async () => render(html.template, { record, detail: await detail() }) };
    return { kind: 'html', html: render(html.template, { record, detail: await detail() }) };
  }
  const binary = stream.content.binary;
  if (!binary) throw new RestRecordError(`${WHAT}.content.binary: a ${mimeType} document needs it`);
  const url = await requiredText(expressions, binary.url, record, `${WHAT}.content.binary.url`);
  const version = await optionalText(expressions, binary.version, record);
  return { kind: 'binary', open: () => requester.stream(url), ...(version !== undefined ? { version } : {}) };
}

function parentOf(value: unknown): FileRecord['parent'] {
  if (value === undefined || value === null) return undefined;
  const p = value as { id?: unknown; name?: unknown; path?: unknown };
  if (typeof p !== 'object' || (typeof p.id !== 'string' && typeof p.id !== 'number'))
    throw new RestRecordError(`${WHAT}.map.parent: must give { id, name, path? }`);
  const nativeId = String(p.id);
  return { nativeId, name: typeof p.name === 'string' ? p.name : nativeId, ...(typeof p.path === 'string' ? { path: p.path } : {}) };
}

function metadataOf(value: unknown): Record<string, string> | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'object' || Array.isArray(value)) throw new RestRecordError(`${WHAT}.map.metadata: must give an object`);
  const out: Record<string, string> = {};
  for (const [key, v] of Object.entries(value)) if (v !== undefined && v !== null) out[key] = typeof v === 'string' ? v : JSON.stringify(v);
  return Object.keys(out).length > 0 ? out : undefined;
}

/** A listed record as the contract's file, its access resolved (throws if any part of it cannot be read). */
export async function toFile(stream: ChildDocumentsStream, record: unknown, nativeId: string, deps: AccessDeps): Promise<FileRecord> {
  const { expressions } = deps;
  const map = stream.map;
  const name = await requiredText(expressions, map.name, record, `${WHAT}.map.name`);
  const externalUrl = await requiredText(expressions, map.url, record, `${WHAT}.map.url`);
  const mimeType = mimeOf(await optionalText(expressions, map.mime_type, record), stream);
  const access = await resolveAccess(stream.access, record, deps, `${WHAT}.access`);
  const content = await contentOf(stream, record, mimeType, deps);
  const createdAt = await optionalText(expressions, map.created_at, record);
  const createdBy = await optionalText(expressions, map.created_by, record);
  const modifiedBy = await optionalText(expressions, map.modified_by, record);
  const parent = map.parent === undefined ? undefined : parentOf(await expressions.evaluate(map.parent, record));
  const customAttributes = map.metadata === undefined ? undefined : metadataOf(await expressions.evaluate(map.metadata, record));
  return {
    nativeId,
    name,
    externalUrl,
    mimeType,
    content,
    access,
    ...(createdAt !== undefined ? { createdAt } : {}),
    ...(createdBy !== undefined ? { createdBy } : {}),
    ...(modifiedBy !== undefined ? { modifiedBy } : {}),
    ...(parent ? { parent } : {}),
    ...(customAttributes ? { customAttributes } : {}),
  };
}
