/**
 * PPTX documents: a 16:9 deck with the smallest part set PowerPoint opens (presentation, one
 * master, one blank layout, a theme), a title slide, then one slide per section.
 */
import type { DocumentContent } from './document-content';
import { packageParts, type Part, relationship as rel, relationships as rels, XML_HEAD, xmlText, zipParts } from './openxml-package';

const TYPE = 'application/vnd.openxmlformats-officedocument.presentationml';

const P_NS =
  'xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships" xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main"';
const EMPTY_TREE =
  '<p:nvGrpSpPr><p:cNvPr id="1" name=""/><p:cNvGrpSpPr/><p:nvPr/></p:nvGrpSpPr><p:grpSpPr><a:xfrm><a:off x="0" y="0"/><a:ext cx="0" cy="0"/><a:chOff x="0" y="0"/><a:chExt cx="0" cy="0"/></a:xfrm></p:grpSpPr>';

function textBox(id: number, name: string, y: number, height: number, paragraphs: string[], size: number, bold: boolean): string {
  const ps = paragraphs
    .map((t) => `<a:p><a:r><a:rPr lang="en-US" sz="${size}"${bold ? ' b="1"' : ''} dirty="0"/><a:t>${xmlText(t)}</a:t></a:r></a:p>`)
    .join('');
  return (
    `<p:sp><p:nvSpPr><p:cNvPr id="${id}" name="${name}"/><p:cNvSpPr txBox="1"/><p:nvPr/></p:nvSpPr>` +
    `<p:spPr><a:xfrm><a:off x="457200" y="${y}"/><a:ext cx="8229600" cy="${height}"/></a:xfrm><a:prstGeom prst="rect"><a:avLst/></a:prstGeom><a:noFill/></p:spPr>` +
    `<p:txBody><a:bodyPr wrap="square" rtlCol="0"><a:normAutofit/></a:bodyPr><a:lstStyle/>${ps}</p:txBody></p:sp>`
  );
}

const THEME =
  `${XML_HEAD}<a:theme xmlns:a="http://schemas.openxmlformats.org/drawingml/2006/main" name="Mock"><a:themeElements>` +
  '<a:clrScheme name="Mock"><a:dk1><a:srgbClr val="000000"/></a:dk1><a:lt1><a:srgbClr val="FFFFFF"/></a:lt1><a:dk2><a:srgbClr val="1F3A5F"/></a:dk2><a:lt2><a:srgbClr val="EEECE1"/></a:lt2>' +
  '<a:accent1><a:srgbClr val="4F81BD"/></a:accent1><a:accent2><a:srgbClr val="C0504D"/></a:accent2><a:accent3><a:srgbClr val="9BBB59"/></a:accent3><a:accent4><a:srgbClr val="8064A2"/></a:accent4>' +
  '<a:accent5><a:srgbClr val="4BACC6"/></a:accent5><a:accent6><a:srgbClr val="F79646"/></a:accent6><a:hlink><a:srgbClr val="0000FF"/></a:hlink><a:folHlink><a:srgbClr val="800080"/></a:folHlink></a:clrScheme>' +
  '<a:fontScheme name="Mock"><a:majorFont><a:latin typeface="Calibri"/><a:ea typeface=""/><a:cs typeface=""/></a:majorFont><a:minorFont><a:latin typeface="Calibri"/><a:ea typeface=""/><a:cs typeface=""/></a:minorFont></a:fontScheme>' +
  '<a:fmtScheme name="Mock"><a:fillStyleLst><a:solidFill><a:schemeClr val="phClr"/></a:solidFill><a:solidFill><a:schemeClr val="phClr"/></a:solidFill><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:fillStyleLst>' +
  '<a:lnStyleLst><a:ln w="9525"><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:ln><a:ln w="25400"><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:ln><a:ln w="38100"><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:ln></a:lnStyleLst>' +
  '<a:effectStyleLst><a:effectStyle><a:effectLst/></a:effectStyle><a:effectStyle><a:effectLst/></a:effectStyle><a:effectStyle><a:effectLst/></a:effectStyle></a:effectStyleLst>' +
  '<a:bgFillStyleLst><a:solidFill><a:schemeClr val="phClr"/></a:solidFill><a:solidFill><a:schemeClr val="phClr"/></a:solidFill><a:solidFill><a:schemeClr val="phClr"/></a:solidFill></a:bgFillStyleLst></a:fmtScheme>' +
  '</a:themeElements><a:objectDefaults/><a:extraClrSchemeLst/></a:theme>';

/** A 16:9 deck: a title slide, then one slide per section with its paragraphs. */
export function buildPptx(content: DocumentContent): Promise<Buffer> {
  const slides: string[] = [
    textBox(2, 'Title', 1600200, 1143000, [content.title], 3600, true) + textBox(3, 'Subtitle', 2857500, 685800, [content.author], 1800, false),
    ...content.sections.map(
      (s) => textBox(2, 'Title', 274638, 857250, [s.heading], 2800, true) + textBox(3, 'Body', 1200150, 3600450, s.paragraphs, 1600, false),
    ),
  ];
  const slideXml = (shapes: string): string =>
    `${XML_HEAD}<p:sld ${P_NS}><p:cSld><p:spTree>${EMPTY_TREE}${shapes}</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sld>`;
  const overrides: Array<[string, string]> = [
    ['ppt/presentation.xml', `${TYPE}.presentation.main+xml`],
    ['ppt/slideMasters/slideMaster1.xml', `${TYPE}.slideMaster+xml`],
    ['ppt/slideLayouts/slideLayout1.xml', `${TYPE}.slideLayout+xml`],
    ['ppt/theme/theme1.xml', 'application/vnd.openxmlformats-officedocument.theme+xml'],
    ...slides.map((_, i): [string, string] => [`ppt/slides/slide${i + 1}.xml`, `${TYPE}.slide+xml`]),
  ];
  const parts: Part[] = [
    ...packageParts(content, 'ppt/presentation.xml', overrides),
    [
      'ppt/presentation.xml',
      `${XML_HEAD}<p:presentation ${P_NS} saveSubsetFonts="1"><p:sldMasterIdLst><p:sldMasterId id="2147483648" r:id="rId1"/></p:sldMasterIdLst>` +
        `<p:sldIdLst>${slides.map((_, i) => `<p:sldId id="${256 + i}" r:id="rId${i + 3}"/>`).join('')}</p:sldIdLst>` +
        '<p:sldSz cx="9144000" cy="5143500"/><p:notesSz cx="6858000" cy="9144000"/></p:presentation>',
    ],
    [
      'ppt/_rels/presentation.xml.rels',
      rels([
        rel('rId1', 'slideMaster', 'slideMasters/slideMaster1.xml'),
        rel('rId2', 'theme', 'theme/theme1.xml'),
        ...slides.map((_, i) => rel(`rId${i + 3}`, 'slide', `slides/slide${i + 1}.xml`)),
      ]),
    ],
    [
      'ppt/slideMasters/slideMaster1.xml',
      `${XML_HEAD}<p:sldMaster ${P_NS}><p:cSld><p:bg><p:bgRef idx="1001"><a:schemeClr val="bg1"/></p:bgRef></p:bg><p:spTree>${EMPTY_TREE}</p:spTree></p:cSld>` +
        '<p:clrMap bg1="lt1" tx1="dk1" bg2="lt2" tx2="dk2" accent1="accent1" accent2="accent2" accent3="accent3" accent4="accent4" accent5="accent5" accent6="accent6" hlink="hlink" folHlink="folHlink"/>' +
        '<p:sldLayoutIdLst><p:sldLayoutId id="2147483649" r:id="rId1"/></p:sldLayoutIdLst></p:sldMaster>',
    ],
    [
      'ppt/slideMasters/_rels/slideMaster1.xml.rels',
      rels([rel('rId1', 'slideLayout', '../slideLayouts/slideLayout1.xml'), rel('rId2', 'theme', '../theme/theme1.xml')]),
    ],
    [
      'ppt/slideLayouts/slideLayout1.xml',
      `${XML_HEAD}<p:sldLayout ${P_NS} type="blank" preserve="1"><p:cSld name="Blank"><p:spTree>${EMPTY_TREE}</p:spTree></p:cSld><p:clrMapOvr><a:masterClrMapping/></p:clrMapOvr></p:sldLayout>`,
    ],
    ['ppt/slideLayouts/_rels/slideLayout1.xml.rels', rels([rel('rId1', 'slideMaster', '../slideMasters/slideMaster1.xml')])],
    ['ppt/theme/theme1.xml', THEME],
    ...slides.flatMap((shapes, i): Part[] => [
      [`ppt/slides/slide${i + 1}.xml`, slideXml(shapes)],
      [`ppt/slides/_rels/slide${i + 1}.xml.rels`, rels([rel('rId1', 'slideLayout', '../slideLayouts/slideLayout1.xml')])],
    ]),
  ];
  return zipParts(parts, content.date);
}
