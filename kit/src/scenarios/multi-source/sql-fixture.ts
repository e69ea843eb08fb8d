import type { Knex } from 'knex';
import type { SqlMappingInput } from 'content-gateway';
import { normalizeEmail } from 'content-gateway/lib';
import { wideSpelling, type ScenarioPerson } from './scenario-people';

/**
 * The scenario's relational source: people (shared with the other sources under a full-width,
 * space-padded spelling of their email, plus one of its own and one inactive) with a department,
 * a clearance and roles, and documents with a department, a level and a kind. Access comes from
 * the attribute policy alone (POLICY_YAML), which the oracle evaluates directly (`sqlGrants`).
 */
export const POLICY_YAML = `version: 1
rules:
  - name: department-cleared
    allow: user.department == doc.department and user.clearance >= doc.level
  - name: editors-read-handbooks
    roles: [editor]
    allow: doc.kind == 'handbook'
`;

/** A policy that forgets the clearance test: the self-test that proves the oracle comparison can fail. */
export const BROKEN_POLICY_YAML = `version: 1
rules:
  - name: department-only
    allow: user.department == doc.department
  - name: editors-read-handbooks
    roles: [editor]
    allow: doc.kind == 'handbook'
`;

export interface SqlPerson {
  id: number;
  email: string;
  active: boolean;
  department: string;
  clearance: number;
  roles: string[];
}
export interface SqlDocument {
  id: number;
  department: string;
  level: number;
  kind: string;
}
export interface SqlModel {
  people: SqlPerson[];
  documents: SqlDocument[];
}

const DEPARTMENTS = ['finance', 'legal', 'research'];
const T0 = Date.parse('2026-04-01T08:00:00Z');

export function sqlModel(people: readonly ScenarioPerson[]): SqlModel {
  const shared = people.slice(4, 12).map((p, i) => ({
    id: i + 1,
    email: wideSpelling(p.email),
    active: i !== 6,
    department: DEPARTMENTS[i % 3] as string,
    clearance: i % 4,
    roles: i === 2 ? ['editor'] : [],
  }));
  shared.push({ id: 100, email: 'auditor@records.example', active: true, department: 'legal', clearance: 3, roles: [] });
  const documents = Array.from({ length: 12 }, (_, i) => ({
    id: i + 1,
    department: DEPARTMENTS[i % 3] as string,
    level: i % 4,
    kind: i % 5 === 0 ? 'handbook' : 'report',
  }));
  return { people: shared, documents };
}

/** The intended policy, evaluated on the model: active, and same department with enough clearance, or an editor reading a handbook. */
export function sqlGrants(person: SqlPerson, doc: SqlDocument): boolean {
  if (!person.active) return false;
  return (person.department === doc.department && person.clearance >= doc.level) || (person.roles.includes('editor') && doc.kind === 'handbook');
}

/** Document `<id>` → the normalised emails the intended policy lets see it. */
export function sqlOracle(model: SqlModel): Map<string, Set<string>> {
  return new Map(model.documents.map((d) => [String(d.id), new Set(model.people.filter((p) => sqlGrants(p, d)).map((p) => normalizeEmail(p.email)))]));
}

export async function createSqlSource(db: Knex, model: SqlModel): Promise<void> {
  await db.schema.createTable('staff', (t) => {
    t.integer('id').primary();
    t.string('email', 200).notNullable();
    t.boolean('is_active').notNullable();
    t.string('department', 50);
    t.integer('clearance');
  });
  await db.schema.createTable('staff_roles', (t) => {
    t.integer('person_id').notNullable();
    t.string('role', 50).notNullable();
  });
  await db.schema.createTable('records', (t) => {
    t.integer('id').primary();
    t.string('title', 200);
    t.text('body');
    t.string('kind', 50);
    t.string('department', 50);
    t.integer('level');
    t.string('updated_at', 40).notNullable();
  });
  await db('staff').insert(model.people.map((p) => ({ id: p.id, email: p.email, is_active: p.active, department: p.department, clearance: p.clearance })));
  await db('staff_roles').insert(model.people.flatMap((p) => p.roles.map((role) => ({ person_id: p.id, role }))));
  await db('records').insert(
    model.documents.map((d) => ({ ...d, title: `Record ${d.id}`, body: `<p>Record ${d.id} of ${d.department}.</p>`, updated_at: new Date(T0).toISOString() })),
  );
}

/**
 * The attribute changes of the scenario's second round, in the model and in the database: a
 * person moves to another department and a record's level rises (its row's time moves, as an
 * application's would).
 */
export async function changeSqlSource(db: Knex, model: SqlModel): Promise<string[]> {
  const mover = model.people[0] as SqlPerson;
  const record = model.documents.find((d) => d.level === 0 && d.kind === 'report') as SqlDocument;
  mover.department = mover.department === 'legal' ? 'research' : 'legal';
  record.level = 3;
  await db('staff').where({ id: mover.id }).update({ department: mover.department });
  await db('records')
    .where({ id: record.id })
    .update({ level: record.level, updated_at: new Date(T0 + 86_400_000).toISOString() });
  return [`person ${mover.id} moved to ${mover.department}`, `record ${record.id} rose to level ${record.level}`];
}

export function sqlMapping(): SqlMappingInput {
  return {
    version: 1,
    documents: {
      table: 'records',
      id: 'id',
      title: 'title',
      body: 'body',
      urlTemplate: 'https://records.example/{{id}}',
      modified: 'updated_at',
      attributes: { kind: 'kind', department: 'department', level: { column: 'level', type: 'number' } },
    },
    users: {
      table: 'staff',
      id: 'id',
      email: 'email',
      active: 'is_active',
      attributes: { department: 'department', clearance: { column: 'clearance', type: 'number' } },
    },
    roles: { table: 'staff_roles', user: 'person_id', role: 'role' },
    incremental: { mode: 'modified' },
  };
}
