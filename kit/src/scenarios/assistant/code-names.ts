import crypto from 'node:crypto';
import type { MockClient } from '../mock-client';

/**
 * Code names: a distinctive phrase per task, so a question can target one known file. The
 * generated organization's text is drawn from a few dozen sentences and task names, so none of
 * its own phrases picks out a single file; the scenario writes one sentence naming a code name
 * into each task's notes (through the mock's admin API, like an edit made in the product) before
 * the first sync. Notes appear on the task's own page only (not its parent's, not its
 * attachments'), so the task's file is the only one that contains its code name.
 */

const CONSONANTS = 'bdfgklmnprstvz';
const VOWELS = 'aeiou';

/** A pronounceable made-up word of three syllables and a closing consonant (`Dorvakel`), from 7 bytes. */
function word(bytes: Buffer, at: number): string {
  let out = '';
  for (let i = 0; i < 3; i++)
    out += (CONSONANTS[(bytes[at + 2 * i] as number) % CONSONANTS.length] as string) + (VOWELS[(bytes[at + 2 * i + 1] as number) % VOWELS.length] as string);
  out += CONSONANTS[(bytes[at + 6] as number) % CONSONANTS.length] as string;
  return out.charAt(0).toUpperCase() + out.slice(1);
}

/**
 * The code name of a task: two made-up words drawn from (seed, gid), redrawn while either word is
 * already `taken` (the words, not only the pairs, are unique: a question's terms then match one file).
 */
export function codeNameFor(seed: string, gid: string, taken: Set<string>): string {
  for (let attempt = 0; ; attempt++) {
    const bytes = crypto.createHash('sha256').update(`${seed}/code-name/${gid}/${attempt}`).digest();
    const first = word(bytes, 0);
    const second = word(bytes, 7);
    const a = first.toLowerCase();
    const b = second.toLowerCase();
    if (a === b || taken.has(a) || taken.has(b)) continue;
    taken.add(a);
    taken.add(b);
    return `${first} ${second}`;
  }
}

const QUESTIONS = ['What is the latest on {}?', 'Where do we stand with {}?', 'Who is working on {} and what is left?', 'Can you summarise {} for me?'];

/** A question a person would ask about a code name (`variant` picks the wording). */
export function questionAbout(code: string, variant: number): string {
  return (QUESTIONS[Math.abs(variant) % QUESTIONS.length] as string).replace('{}', code);
}

/** The sentence added to a task's notes. */
export const codeNameSentence = (code: string): string => `Code name ${code}: the plan, the owners and the open questions are tracked here.`;

/**
 * Gives every task a code name: reads its notes and writes them back with the code name's
 * sentence appended. Returns task gid → code name.
 */
export async function plantCodeNames(mock: MockClient, taskGids: readonly string[], seed: string): Promise<Map<string, string>> {
  const taken = new Set<string>();
  const codes = new Map<string, string>();
  for (const gid of [...taskGids].sort()) codes.set(gid, codeNameFor(seed, gid, taken));
  for (const [gid, code] of codes) {
    const task = await mock.request<{ data: { notes: string | null } }>('GET', `/api/1.0/tasks/${gid}?opt_fields=notes`);
    const notes = task.data.notes ? `${task.data.notes}\n\n${codeNameSentence(code)}` : codeNameSentence(code);
    await mock.request('PUT', `/_admin/tasks/${gid}`, { notes });
  }
  return codes;
}
