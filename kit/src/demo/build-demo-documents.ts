/**
 * Writes the binary documents of the demo corpus (PDF, DOCX, PPTX, TXT) into src/demo/corpus,
 * with the work-management mock's document builders (one builder for both):
 *
 *   npx tsx kit/src/demo/build-demo-documents.ts
 *
 * The outputs are committed and every date in them is pinned, so re-running the script leaves the
 * tree unchanged. A development script: nothing at run time needs it, so the production build
 * leaves it out (tsconfig.build.json).
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { buildDocument } from '../mocks/work-management/documents/build-document';
import type { DocumentSection } from '../mocks/work-management/documents/document-content';
import type { AttachmentKind } from '../mocks/work-management/model';
import { DEMO_CORPUS_DIR } from 'content-gateway';

const AUTHOR = 'Northwind Labs';
const DATE = new Date('2025-01-15T09:00:00Z');
const KINDS: readonly AttachmentKind[] = ['pdf', 'docx', 'pptx', 'txt'];

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
          "Wed 1 January - New Year's Day",
          'Fri 18 April - Good Friday',
          'Fri 25 April - Freedom Day',
          'Thu 1 May - Labour Day',
          'Tue 10 June - Portugal Day',
          'Fri 13 June - Saint Anthony (Lisbon municipal holiday)',
          'Thu 19 June - Corpus Christi',
          'Fri 15 August - Assumption Day',
          'Sun 5 October - Republic Day',
          "Sat 1 November - All Saints' Day",
          'Mon 1 December - Restoration of Independence',
          'Mon 8 December - Immaculate Conception',
          'Thu 25 December - Christmas Day',
        ],
      },
      {
        heading: 'Company days',
        paragraphs: ['Tue 4 March - Carnival: the office is closed, as most of Lisbon is.', 'Wed 24 December and Wed 31 December: the office closes at 13:00.'],
      },
    ],
  },
];

/** The bytes of one demo document, by its file extension. */
export async function buildDemoDocument(doc: DemoDocument): Promise<Buffer> {
  const kind = KINDS.find((k) => path.extname(doc.relativePath) === `.${k}`);
  if (!kind) throw new Error(`no builder for ${doc.relativePath}`);
  return buildDocument(kind, { title: doc.title, author: AUTHOR, date: DATE, sections: doc.sections });
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
