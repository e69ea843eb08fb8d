/**
 * Word lists and deterministic text for the generated organization. Long texts (task notes,
 * comments, document bodies) are derived from (seed, gid) when read instead of being stored, so
 * a 100,000-task organization stays small in memory and still reads the same on every run.
 */
import { Random } from './random';

export const FIRST_NAMES = [
  'Ana',
  'Bruno',
  'Carla',
  'Diogo',
  'Elena',
  'Farid',
  'Greta',
  'Hugo',
  'Inês',
  'Jonas',
  'Kira',
  'Luís',
  'Marta',
  'Nuno',
  'Olga',
  'Pedro',
  'Quinn',
  'Rita',
  'Samir',
  'Teresa',
  'Ulrich',
  'Vera',
  'Wen',
  'Xavier',
  'Yara',
  'Zé',
  'Amir',
  'Beatriz',
  'Chen',
  'Dana',
  'Emil',
  'Filipa',
  'Gustavo',
  'Hana',
  'Ivo',
  'Joana',
  'Kenji',
  'Lara',
  'Miguel',
  'Noor',
  'Oscar',
  'Priya',
  'Rafael',
  'Sofia',
  'Tomás',
  'Uma',
  'Vasco',
  'Wanda',
  'Yusuf',
  'Zoe',
] as const;

export const LAST_NAMES = [
  'Almeida',
  'Berg',
  'Costa',
  'Duarte',
  'Esteves',
  'Fonseca',
  'Gomes',
  'Hansen',
  'Ibrahim',
  'Jensen',
  'Kowalski',
  'Lopes',
  'Moreira',
  'Nakamura',
  'Oliveira',
  'Pereira',
  'Quintela',
  'Ribeiro',
  'Santos',
  'Tavares',
  'Ueda',
  'Vieira',
  'Weber',
  'Xu',
  'Yilmaz',
  'Zimmer',
  'Andrade',
  'Bauer',
  'Cardoso',
  'Dias',
  'Ferreira',
  'Garcia',
  'Henriques',
  'Leal',
  'Martins',
  'Novak',
  'Pinto',
  'Rocha',
  'Silva',
  'Teixeira',
] as const;

export const TEAM_NAMES = [
  'Platform',
  'Firmware',
  'Customer Success',
  'Marketing',
  'Finance',
  'People',
  'Sales',
  'Design',
  'Data',
  'Security',
  'Mobile',
  'Hardware',
  'Support',
  'Legal',
  'Operations',
  'Procurement',
  'Quality',
  'Research',
  'Partnerships',
  'Facilities',
] as const;

export const PROJECT_TOPICS = [
  'Q3 roadmap',
  'Website relaunch',
  'Onboarding revamp',
  'Sensor supplier qualification',
  'Kubernetes upgrade',
  'Brand refresh',
  'Annual budget',
  'Hiring plan',
  'Security review',
  'Customer dashboard v2',
  'Battery life',
  'Pharma pilot',
  'Office move',
  'Expense policy update',
  'Partner portal',
  'Data warehouse migration',
  'Incident follow-ups',
  'Trade show',
  'Localization',
  'Pricing experiment',
  'Support macros',
  'Firmware 4.3',
  'Board prep',
  'Compliance audit',
  'Mobile app release',
] as const;

const TASK_VERBS = [
  'Draft',
  'Review',
  'Update',
  'Fix',
  'Plan',
  'Ship',
  'Test',
  'Document',
  'Prepare',
  'Audit',
  'Design',
  'Migrate',
  'Schedule',
  'Approve',
  'Measure',
] as const;
const TASK_OBJECTS = [
  'the release notes',
  'supplier contract',
  'onboarding checklist',
  'dashboard filters',
  'alert thresholds',
  'budget sheet',
  'interview loop',
  'landing page copy',
  'shipping labels',
  'firmware rollout',
  'on-call rota',
  'customer survey',
  'access review',
  'pricing page',
  'runbook',
  'test plan',
  'data retention policy',
  'quarterly report',
  'API rate limits',
  'battery test rig',
] as const;

const SENTENCES = [
  'We agreed to keep the scope small and ship the first version before the end of the month.',
  'The customer asked for weekly updates until the rollout is complete.',
  'Numbers from the last quarter are in the shared sheet; please check them before the review.',
  'Legal has not signed off yet, so nothing leaves the building until they do.',
  'This depends on the supplier confirming the delivery date for the new sensors.',
  'Please add your comments by Thursday so we can decide in the Friday meeting.',
  'The previous attempt failed because the test devices were on an old firmware.',
  'Budget is approved for the pilot only; the full rollout needs a second approval.',
  'Support saw a spike in tickets after the last release, mostly about login.',
  'Keep the runbook in sync with whatever we change here.',
  'Marketing wants a short summary they can reuse in the newsletter.',
  'The dashboard should load in under two seconds for the largest customer.',
  'We are blocked on access to the staging environment.',
  'Design shared two options; the second one tested better with customers.',
  'Finance needs the purchase order number before the invoice can be paid.',
  'Let us revisit this after the security review is done.',
] as const;

export function personName(rng: Random): { first: string; last: string } {
  return { first: rng.pick(FIRST_NAMES), last: rng.pick(LAST_NAMES) };
}

export function taskName(rng: Random): string {
  return `${rng.pick(TASK_VERBS)} ${rng.pick(TASK_OBJECTS)}`;
}

/** `count` paragraphs of 2–4 sentences, the same for the same (seed, key). */
export function paragraphsFor(seed: string, key: string, count: number): string[] {
  const rng = new Random(`${seed}/text/${key}`);
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    const n = rng.int(2, 4);
    const parts: string[] = [];
    for (let j = 0; j < n; j++) parts.push(rng.pick(SENTENCES));
    out.push(parts.join(' '));
  }
  return out;
}

/** ASCII-only slug for email local parts and file names. */
export function slug(text: string): string {
  return text
    .normalize('NFD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}
