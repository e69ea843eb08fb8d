/** DOCX documents: the smallest part set Word opens (document, core properties), one paragraph per line of content. */
import { byline, type DocumentContent } from './document-content';
import { packageParts, XML_HEAD, xmlText, zipParts } from './openxml-package';

const MAIN = 'word/document.xml';
const MAIN_TYPE = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml';

function paragraph(text: string, opts: { bold?: boolean; size?: number } = {}): string {
  const props = opts.bold || opts.size ? `<w:rPr>${opts.bold ? '<w:b/>' : ''}${opts.size ? `<w:sz w:val="${opts.size}"/>` : ''}</w:rPr>` : '';
  return `<w:p><w:r>${props}<w:t xml:space="preserve">${xmlText(text)}</w:t></w:r></w:p>`;
}

export function buildDocx(content: DocumentContent): Promise<Buffer> {
  const body = [
    paragraph(content.title, { bold: true, size: 40 }),
    paragraph(byline(content)),
    ...content.sections.flatMap((s) => [paragraph(s.heading, { bold: true, size: 28 }), ...s.paragraphs.map((p) => paragraph(p))]),
  ].join('');
  const document =
    `${XML_HEAD}<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>${body}` +
    '<w:sectPr><w:pgSz w:w="11906" w:h="16838"/><w:pgMar w:top="1440" w:right="1440" w:bottom="1440" w:left="1440" w:header="708" w:footer="708" w:gutter="0"/></w:sectPr></w:body></w:document>';
  return zipParts([...packageParts(content, MAIN, [[MAIN, MAIN_TYPE]]), [MAIN, document]], content.date);
}
