/**
 * The package parts DOCX and PPTX share (content types, relationships, core properties) and the
 * zip around them, written by jszip: entries in the given order, DEFLATE, every entry dated with
 * the document's date, no folder entries — so the same parts give the same bytes.
 */
import JSZip from 'jszip';
import type { DocumentContent } from './document-content';

export const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n';
const REL_NS = 'http://schemas.openxmlformats.org/package/2006/relationships';
const OFFICE_REL = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships';
const CORE_PROPS_TYPE = 'application/vnd.openxmlformats-package.core-properties+xml';

/** One part of the package: its path in the zip and its XML. */
export type Part = readonly [path: string, xml: string];

/** Text for XML content and attribute values. */
export function xmlText(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A relationship of an officeDocument type (`slide`, `theme`, ...). */
export function relationship(id: string, type: string, target: string): string {
  return `<Relationship Id="${id}" Type="${OFFICE_REL}/${type}" Target="${target}"/>`;
}

export function relationships(items: readonly string[]): string {
  return `${XML_HEAD}<Relationships xmlns="${REL_NS}">${items.join('')}</Relationships>`;
}

/**
 * The parts every package starts with: `[Content_Types].xml` (the given overrides, then core
 * properties), `_rels/.rels` (the main part and core properties) and `docProps/core.xml`.
 */
export function packageParts(content: DocumentContent, main: string, overrides: ReadonlyArray<readonly [part: string, type: string]>): Part[] {
  const override = ([part, type]: readonly [string, string]): string => `<Override PartName="/${part}" ContentType="${type}"/>`;
  return [
    [
      '[Content_Types].xml',
      `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/>` +
        `${[...overrides, ['docProps/core.xml', CORE_PROPS_TYPE] as const].map(override).join('')}</Types>`,
    ],
    [
      '_rels/.rels',
      relationships([
        relationship('rId1', 'officeDocument', main),
        `<Relationship Id="rId2" Type="${REL_NS}/metadata/core-properties" Target="docProps/core.xml"/>`,
      ]),
    ],
    ['docProps/core.xml', coreProps(content)],
  ];
}

function coreProps(content: DocumentContent): string {
  const stamp = content.date.toISOString().replace(/\.\d{3}Z$/, 'Z');
  return (
    `${XML_HEAD}<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">` +
    `<dc:title>${xmlText(content.title)}</dc:title><dc:creator>${xmlText(content.author)}</dc:creator>` +
    `<dcterms:created xsi:type="dcterms:W3CDTF">${stamp}</dcterms:created><dcterms:modified xsi:type="dcterms:W3CDTF">${stamp}</dcterms:modified></cp:coreProperties>`
  );
}

/** The zip of the parts, in their order (zip dates are UTC, to the even second). */
export async function zipParts(parts: readonly Part[], date: Date): Promise<Buffer> {
  const zip = new JSZip();
  for (const [path, xml] of parts) zip.file(path, xml, { date, createFolders: false });
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', compressionOptions: { level: 6 }, platform: 'DOS' });
}
