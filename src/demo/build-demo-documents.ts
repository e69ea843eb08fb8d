/**
 * Builds the binary documents of the demo corpus (PDF, DOCX, PPTX, TXT) and, when run as a
 * script, writes them into src/demo/corpus:
 *
 *   npx tsx src/demo/build-demo-documents.ts
 *
 * The outputs are committed, so the builders pin every date they can: re-running the script
 * should leave the tree unchanged. The builders are exported for code that needs documents.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { Document, HeadingLevel, Packer, Paragraph } from 'docx';
import JSZip from 'jszip';
import { PDFDocument, PDFFont, StandardFonts, rgb } from 'pdf-lib';
import PptxGenJS from 'pptxgenjs';
import { DEMO_CORPUS_DIR } from './demo-corpus-dir';

export interface DocumentSection {
  heading: string;
  paragraphs: string[];
}

export interface BuildOptions {
  author?: string;
  /** Written as both creation and modification date, so output does not depend on the clock. */
  date?: Date;
}

const DEFAULT_AUTHOR = 'Northwind Labs';
const DEFAULT_DATE = new Date('2025-01-15T09:00:00Z');

/** A4 portrait, in points; the standard Helvetica fonts need no embedding, keeping files small. */
const PAGE = { width: 595.28, height: 841.89, margin: 64 } as const;

/**
 * A PDF with a title and one heading plus paragraphs per section, wrapped and paginated.
 * Text must be WinAnsi-encodable (Latin-1 and a few more), the limit of the standard fonts.
 */
export async function buildPdf(title: string, sections: DocumentSection[], options: BuildOptions = {}): Promise<Buffer> {
  const date = options.date ?? DEFAULT_DATE;
  // updateMetadata: false stops pdf-lib stamping the current time and its own producer.
  const pdf = await PDFDocument.create({ updateMetadata: false });
  pdf.setTitle(title);
  pdf.setAuthor(options.author ?? DEFAULT_AUTHOR);
  pdf.setCreator('content-gateway demo document builder');
  pdf.setProducer('pdf-lib');
  pdf.setCreationDate(date);
  pdf.setModificationDate(date);

  const regular = await pdf.embedFont(StandardFonts.Helvetica);
  const bold = await pdf.embedFont(StandardFonts.HelveticaBold);
  const textWidth = PAGE.width - 2 * PAGE.margin;
  let page = pdf.addPage([PAGE.width, PAGE.height]);
  let y = PAGE.height - PAGE.margin;

  const write = (text: string, font: PDFFont, size: number, spaceBefore: number): void => {
    const lineHeight = size * 1.4;
    y -= spaceBefore;
    for (const line of wrap(text, (s) => font.widthOfTextAtSize(s, size), textWidth)) {
      if (y - lineHeight < PAGE.margin) {
        page = pdf.addPage([PAGE.width, PAGE.height]);
        y = PAGE.height - PAGE.margin;
      }
      y -= lineHeight;
      page.drawText(line, { x: PAGE.margin, y, size, font, color: rgb(0.1, 0.1, 0.1) });
    }
  };

  write(title, bold, 20, 0);
  for (const section of sections) {
    write(section.heading, bold, 14, 18);
    for (const paragraph of section.paragraphs) write(paragraph, regular, 11, 8);
  }
  return Buffer.from(await pdf.save());
}

/** A Word document: the title, then a level-1 heading and body paragraphs per section. */
export async function buildDocx(title: string, sections: DocumentSection[], options: BuildOptions = {}): Promise<Buffer> {
  const author = options.author ?? DEFAULT_AUTHOR;
  const doc = new Document({
    title,
    creator: author,
    lastModifiedBy: author,
    revision: 1,
    sections: [
      {
        children: [
          new Paragraph({ text: title, heading: HeadingLevel.TITLE }),
          ...sections.flatMap((section) => [
            new Paragraph({ text: section.heading, heading: HeadingLevel.HEADING_1 }),
            ...section.paragraphs.map((text) => new Paragraph({ text, spacing: { after: 120 } })),
          ]),
        ],
      },
    ],
  });
  return pinZipDates(await Packer.toBuffer(doc), options.date ?? DEFAULT_DATE);
}

/** A 16:9 deck: a title slide, then one slide per section with its paragraphs as bullets. */
export async function buildPptx(title: string, sections: DocumentSection[], options: BuildOptions = {}): Promise<Buffer> {
  const pptx = new PptxGenJS();
  pptx.layout = 'LAYOUT_16x9';
  pptx.author = options.author ?? DEFAULT_AUTHOR;
  pptx.company = DEFAULT_AUTHOR;
  pptx.title = title;
  pptx.subject = title; // otherwise pptxgenjs writes its own name as the subject

  const cover = pptx.addSlide();
  cover.addText(title, { x: 0.5, y: 2.0, w: 9, h: 1.2, fontSize: 36, bold: true, color: '1F3A5F' });
  cover.addText(pptx.author, { x: 0.5, y: 3.2, w: 9, h: 0.6, fontSize: 18, color: '555555' });

  for (const section of sections) {
    const slide = pptx.addSlide();
    slide.addText(section.heading, { x: 0.5, y: 0.3, w: 9, h: 0.9, fontSize: 28, bold: true, color: '1F3A5F' });
    slide.addText(
      section.paragraphs.map((text) => ({ text, options: { bullet: true, breakLine: true } })),
      { x: 0.5, y: 1.3, w: 9, h: 4, fontSize: 18, valign: 'top', color: '222222' },
    );
  }
  const bytes = await pptx.write({ outputType: 'nodebuffer', compression: true });
  return pinZipDates(bytes as Uint8Array, options.date ?? DEFAULT_DATE);
}

/** Plain UTF-8 text: an underlined title and headings, paragraphs wrapped at 78 columns. */
export function buildTxt(title: string, sections: DocumentSection[]): Buffer {
  const lines = [title, '='.repeat(title.length)];
  for (const section of sections) {
    lines.push('', section.heading, '-'.repeat(section.heading.length));
    for (const paragraph of section.paragraphs) lines.push('', ...wrap(paragraph, (s) => s.length, 78));
  }
  return Buffer.from(`${lines.join('\n')}\n`, 'utf8');
}

/**
 * docx and pptxgenjs stamp the current time into docProps/core.xml and into every zip entry,
 * with no option to choose it. Re-zipping with fixed dates makes the output reproducible.
 * (jszip is what pptxgenjs itself zips with.)
 */
async function pinZipDates(bytes: Uint8Array, date: Date): Promise<Buffer> {
  const zip = await JSZip.loadAsync(bytes);
  const core = zip.file('docProps/core.xml');
  if (core) {
    const stamp = date.toISOString().replace(/\.\d{3}Z$/, 'Z');
    const xml = await core.async('string');
    zip.file('docProps/core.xml', xml.replace(/(<dcterms:(?:created|modified)\b[^>]*>)[^<]*/g, `$1${stamp}`));
  }
  zip.forEach((_name, entry) => {
    entry.date = date;
  });
  return zip.generateAsync({ type: 'nodebuffer', compression: 'DEFLATE', compressionOptions: { level: 9 } });
}

/** Greedy word wrap; a single word wider than the line is left whole rather than split. */
function wrap(text: string, width: (s: string) => number, max: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    const candidate = line ? `${line} ${word}` : word;
    if (line && width(candidate) > max) {
      lines.push(line);
      line = word;
    } else {
      line = candidate;
    }
  }
  if (line) lines.push(line);
  return lines;
}

export type DemoDocument = { relativePath: string; title: string; sections: DocumentSection[] };

/** The corpus's generated documents; the folder decides who may read each (see corpus/_README.md). */
export const DEMO_DOCUMENTS: readonly DemoDocument[] = [
  {
    relativePath: 'engineering/incident-response-runbook.pdf',
    title: 'Incident Response Runbook',
    sections: [
      {
        heading: 'Purpose',
        paragraphs: [
          'This runbook tells the on-call engineer what to do from the moment an alert fires until the incident review is published. It covers the customer dashboard, the telemetry ingest pipeline and the device update service. Follow it even when the fix looks obvious: the steps exist so that nobody has to remember them at three in the morning.',
        ],
      },
      {
        heading: 'Severity levels',
        paragraphs: [
          'SEV1: customers cannot see live telemetry for shipments in transit, or devices are receiving a faulty update. Page the incident commander and the platform lead immediately, at any hour.',
          'SEV2: a feature is degraded for some customers, for example delayed alerts or a slow dashboard, but shipments are still monitored. Page during working hours; out of hours, the on-call engineer decides.',
          'SEV3: an internal tool or a single customer integration is affected. Open a ticket and handle it the next working day.',
        ],
      },
      {
        heading: 'The first fifteen minutes',
        paragraphs: [
          'Acknowledge the page within five minutes so the escalation policy does not wake the secondary. Open an incident channel named after the date and a two-word summary, and post the alert, the graphs you are looking at and your first guess at the severity.',
          'Decide who is the incident commander. For SEV1 it is never the person debugging: the commander coordinates, keeps the timeline and talks to support, while engineers investigate.',
          'Check the deployment log. More than half of our incidents in the last year started within an hour of a deploy, and rolling back is usually the fastest mitigation.',
        ],
      },
      {
        heading: 'Mitigate before you diagnose',
        paragraphs: [
          'The goal during an incident is to stop the customer impact, not to understand it. Roll back the last deploy, fail over to the secondary region, or pause the device update rollout before you start reading code. Root causes are for the review.',
          'Ingest backlog: scale the ingest workers to the maximum in the autoscaling group and enable the overflow queue. Devices buffer up to six hours of readings, so no data is lost as long as the backlog drains within that window.',
          'Faulty device update: set the rollout percentage to zero in the update service. Devices that already installed the update can be sent the previous version; devices in transit will pick it up at their next check-in.',
        ],
      },
      {
        heading: 'Communication',
        paragraphs: [
          'For SEV1 and SEV2, support posts a status page update within thirty minutes and every hour after that, using the wording the commander agrees in the incident channel. Do not speculate about causes in public updates.',
          'Customers with shipments of temperature-sensitive pharmaceuticals are called by their account manager, not just emailed, whenever live telemetry is delayed by more than fifteen minutes.',
        ],
      },
      {
        heading: 'After the incident',
        paragraphs: [
          'The commander writes a blameless review within five working days: timeline, impact, what went well, what went badly and the follow-up actions with owners. Reviews are read aloud at the Thursday engineering meeting.',
          'Follow-up actions get tickets with a due date. An action that is not done within a month is discussed at the next review, so it is either done or consciously dropped.',
        ],
      },
    ],
  },
  {
    relativePath: 'hr/salary-bands-2025.docx',
    title: 'Salary Bands 2025',
    sections: [
      {
        heading: 'Scope',
        paragraphs: [
          'This document sets the annual gross salary bands for 2025 for employees in Portugal. Contractors and employees in other countries are paid on separate scales reviewed with local advisers. Confidential: shared with the Head of People only.',
          'Bands were set against the spring salary survey for hardware and software companies of 30 to 200 employees in Lisbon and Porto, targeting the 60th percentile.',
        ],
      },
      {
        heading: 'Engineering',
        paragraphs: [
          'E1 Associate Engineer: EUR 30,000 to 38,000.',
          'E2 Engineer: EUR 38,000 to 50,000.',
          'E3 Senior Engineer: EUR 50,000 to 66,000.',
          'E4 Staff Engineer: EUR 66,000 to 82,000.',
          'Firmware roles sit in the same bands with a market supplement of 8 percent, reviewed yearly.',
        ],
      },
      {
        heading: 'Operations and commercial',
        paragraphs: [
          'O1 Coordinator: EUR 24,000 to 30,000.',
          'O2 Specialist: EUR 30,000 to 40,000.',
          'O3 Lead: EUR 40,000 to 55,000.',
          'Sales roles add a variable component of up to 30 percent of base salary, paid quarterly against signed contracts.',
        ],
      },
      {
        heading: 'Review process',
        paragraphs: [
          'Salaries are reviewed once a year in March. Managers propose a position within the band based on scope and impact; the Head of People checks the proposals for consistency across teams and gender before the executive team approves the total budget.',
          'Nobody is paid below the minimum of their band. Salaries above the maximum are frozen until the band catches up, and the employee is told so in writing.',
        ],
      },
    ],
  },
  {
    relativePath: 'company/all-hands-2025-q3.pptx',
    title: 'Q3 2025 All-Hands',
    sections: [
      {
        heading: 'Agenda',
        paragraphs: ['Quarter highlights', 'Product update', 'Team news', 'What comes next', 'Questions'],
      },
      {
        heading: 'Quarter highlights',
        paragraphs: [
          'Revenue 6% above plan',
          'Pharmaceutical distribution pilot signed as a three-year contract',
          'Device return rate down to 1.8% after the enclosure redesign',
        ],
      },
      {
        heading: 'Product update',
        paragraphs: [
          'Shock alerts now arrive in under ten seconds',
          'New dashboard map view for shipments in transit',
          'Firmware 4.2 extends battery life by three days',
        ],
      },
      {
        heading: 'Team news',
        paragraphs: [
          'Welcome to three new colleagues in engineering and support',
          'Kubernetes upgrade led by the platform team starts in week 41',
          'The café espresso machine has been repaired, again',
        ],
      },
      {
        heading: 'What comes next',
        paragraphs: [
          'Second sensor supplier qualification',
          'Security review of the customer dashboard',
          'Hiring four engineers in the first half of next year',
        ],
      },
    ],
  },
  {
    relativePath: 'company/holiday-calendar-2025.txt',
    title: 'Northwind Labs Holiday Calendar 2025 (Lisbon office)',
    sections: [
      {
        heading: 'How it works',
        paragraphs: [
          'The Lisbon office is closed on the public holidays below, and everyone in Portugal has them off in addition to 25 days of annual leave. Remote colleagues elsewhere follow their own public holidays and tell their manager which ones they take.',
          'On-call duty continues over holidays. Whoever is on call on a public holiday gets a day off in lieu, to be taken within two months.',
        ],
      },
      {
        heading: 'Public holidays',
        paragraphs: [
          'Wed 1 January - New Year\'s Day',
          'Fri 18 April - Good Friday',
          'Fri 25 April - Freedom Day',
          'Thu 1 May - Labour Day',
          'Tue 10 June - Portugal Day',
          'Fri 13 June - Saint Anthony (Lisbon municipal holiday)',
          'Thu 19 June - Corpus Christi',
          'Fri 15 August - Assumption Day',
          'Sun 5 October - Republic Day',
          'Sat 1 November - All Saints\' Day',
          'Mon 1 December - Restoration of Independence',
          'Mon 8 December - Immaculate Conception',
          'Thu 25 December - Christmas Day',
        ],
      },
      {
        heading: 'Company days',
        paragraphs: [
          'Tue 4 March - Carnival: the office is closed, as most of Lisbon is.',
          'Wed 24 December and Wed 31 December: the office closes at 13:00.',
        ],
      },
    ],
  },
];

async function buildDemoDocument(doc: DemoDocument): Promise<Buffer> {
  switch (path.extname(doc.relativePath)) {
    case '.pdf':
      return buildPdf(doc.title, doc.sections);
    case '.docx':
      return buildDocx(doc.title, doc.sections);
    case '.pptx':
      return buildPptx(doc.title, doc.sections);
    case '.txt':
      return buildTxt(doc.title, doc.sections);
    default:
      throw new Error(`no builder for ${doc.relativePath}`);
  }
}

export async function writeDemoDocuments(root: string = DEMO_CORPUS_DIR): Promise<Array<{ file: string; size: number }>> {
  const written: Array<{ file: string; size: number }> = [];
  for (const doc of DEMO_DOCUMENTS) {
    const file = path.join(root, doc.relativePath);
    const bytes = await buildDemoDocument(doc);
    await fs.mkdir(path.dirname(file), { recursive: true });
    await fs.writeFile(file, bytes);
    written.push({ file, size: bytes.length });
  }
  return written;
}

if (require.main === module) {
  writeDemoDocuments().then(
    (written) => {
      for (const { file, size } of written) console.log(`wrote ${file} (${size} bytes)`);
    },
    (err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    },
  );
}
