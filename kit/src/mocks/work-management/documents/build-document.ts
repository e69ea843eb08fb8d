/**
 * Attachment bytes: PDF (pdf-lib), DOCX and PPTX (OpenXML parts written here, zipped by jszip)
 * and TXT. The mock builds them on download from (seed, attachment gid), never up front, so a
 * 100,000-task organization costs nothing until a file is fetched; the demo corpus script builds
 * its documents with the same builders. Every date in the output is the content's date, so the
 * same content gives the same bytes.
 */
import type { AttachmentKind } from '../model';
import { buildDocx } from './build-docx';
import { buildPdf } from './build-pdf';
import { buildPptx } from './build-pptx';
import { buildTxt } from './build-txt';
import type { DocumentContent } from './document-content';

export const MIME_TYPES: Record<AttachmentKind, string> = {
  pdf: 'application/pdf',
  docx: 'application/vnd.openxmlformats-officedocument.wordprocessingml.document',
  pptx: 'application/vnd.openxmlformats-officedocument.presentationml.presentation',
  txt: 'text/plain; charset=utf-8',
};

export async function buildDocument(kind: AttachmentKind, content: DocumentContent): Promise<Buffer> {
  switch (kind) {
    case 'pdf':
      return buildPdf(content);
    case 'docx':
      return buildDocx(content);
    case 'pptx':
      return buildPptx(content);
    case 'txt':
      return buildTxt(content);
  }
}
