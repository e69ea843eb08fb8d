/** What a generated document says: its title, author, date and sections, derived from the seed and the attachment's gid. */
import type { Attachment, WorkManagementStore } from '../model';
import { paragraphsFor } from '../names';
import { Random } from '../random';

export interface DocumentSection {
  heading: string;
  paragraphs: string[];
}

export interface DocumentContent {
  title: string;
  author: string;
  date: Date;
  sections: DocumentSection[];
}

const HEADINGS = ['Summary', 'Background', 'Decisions', 'Open questions', 'Timeline', 'Risks', 'Next steps', 'Budget', 'Owners', 'Notes'];

/** The text of an attachment's document, derived from the seed and its gid. */
export function documentContent(store: WorkManagementStore, attachment: Attachment): DocumentContent {
  const rng = new Random(`${store.indexes.seed}/doc/${attachment.gid}`);
  const count = rng.int(2, 5);
  const headings = rng.sample(HEADINGS, count);
  const sections = headings.map((heading, i) => ({ heading, paragraphs: paragraphsFor(store.indexes.seed, `${attachment.gid}/${i}`, rng.int(1, 3)) }));
  return {
    title: attachment.name.replace(/\.[a-z0-9]+$/i, ''),
    author: (attachment.createdBy ? store.indexes.users.get(attachment.createdBy)?.name : undefined) ?? 'Work management',
    date: new Date(attachment.createdAt),
    sections,
  };
}

/** The date line under the title: `author, YYYY-MM-DD`. */
export function byline(content: DocumentContent): string {
  return `${content.author}, ${content.date.toISOString().slice(0, 10)}`;
}
