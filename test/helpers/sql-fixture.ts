import fs from 'node:fs';
import path from 'node:path';
import type { Knex } from 'knex';
import { stringify as toYaml } from 'yaml';
import type { SqlMappingInput } from '../../src/adapters/sql';
import type { SqlSource } from './sql-source';

/**
 * A small intranet in a relational database, as the SQL adapter's tests (and docs) use it:
 * people with departments and clearances, role assignments, teams (one nested in another),
 * documents with kind, space, department, level and tags, explicit access rows (users, teams,
 * everyone, and one naming nobody), and a change table. Documents come in runs of three sharing a
 * timestamp, so keyset ties are exercised everywhere.
 */
export const FIXTURE_START = Date.parse('2026-04-01T08:00:00Z');
export const DOCUMENT_COUNT = 12;

export async function createFixtureSchema(db: Knex): Promise<void> {
  await db.schema.createTable('people', (t) => {
    t.integer('id').primary();
    t.string('email', 200).notNullable();
    t.string('full_name', 200);
    t.boolean('is_active').notNullable();
    t.string('department', 50);
    t.integer('clearance');
  });
  await db.schema.createTable('role_assignments', (t) => {
    t.integer('person_id').notNullable();
    t.string('role', 50).notNullable();
  });
  await db.schema.createTable('teams', (t) => {
    t.string('id', 50).primary();
    t.string('name', 200);
  });
  await db.schema.createTable('team_members', (t) => {
    t.string('team_id', 50).notNullable();
    t.string('member_id', 50).notNullable();
    t.string('member_type', 10).notNullable();
  });
  await db.schema.createTable('documents', (t) => {
    t.integer('id').primary();
    t.string('title', 300);
    t.text('body');
    t.string('kind', 50);
    t.string('space', 50);
    t.string('department', 50);
    t.integer('level');
    t.string('tags', 200);
    t.string('author', 200);
    t.datetime('updated_at', { precision: 6 }).notNullable();
  });
  await db.schema.createTable('document_access', (t) => {
    t.integer('document_id').notNullable();
    t.string('principal_type', 10).notNullable();
    t.string('principal_id', 50);
  });
  await db.schema.createTable('document_changes', (t) => {
    t.increments('seq').primary();
    t.integer('document_id').notNullable();
    t.string('op', 10).notNullable();
  });
}

const DEPARTMENTS = ['finance', 'legal', 'research'] as const;

export function documentRow(source: Pick<SqlSource, 'ts'>, i: number): Record<string, unknown> {
  return {
    id: i,
    title: `Document ${i}`,
    body: `<p>Body of document ${i} &amp; more.</p>`,
    kind: i % 2 === 0 ? 'policy' : 'report',
    space: i % 3 === 0 ? 'board' : 'general',
    department: DEPARTMENTS[i % 3],
    level: i % 4,
    tags: i % 2 === 0 ? 'alpha, beta' : 'gamma',
    author: `person${(i % 5) + 1}@example.com`,
    updated_at: source.ts(FIXTURE_START + Math.floor(i / 3) * 60_000),
  };
}

/** Access rows of document `i`: a user, a team, everyone for every fourth, and a grant to someone the directory lacks. */
function accessRows(i: number): Array<Record<string, unknown>> {
  const rows: Array<Record<string, unknown>> = [
    { document_id: i, principal_type: 'USER', principal_id: String((i % 5) + 1) },
    { document_id: i, principal_type: 'group', principal_id: i % 2 === 0 ? 'finance-team' : 'all-staff' },
  ];
  if (i % 4 === 0) rows.push({ document_id: i, principal_type: 'EVERYONE', principal_id: null });
  if (i === 1) rows.push({ document_id: i, principal_type: 'USER', principal_id: '999' });
  return rows;
}

export async function seedFixture(source: Pick<SqlSource, 'db' | 'ts'>): Promise<void> {
  const { db } = source;
  await db('people').insert(
    [1, 2, 3, 4, 5, 6].map((id) => ({
      id,
      email: `person${id}@example.com`,
      full_name: `Person ${id}`,
      is_active: id !== 6,
      department: DEPARTMENTS[id % 3],
      clearance: id % 4,
    })),
  );
  await db('role_assignments').insert([
    { person_id: 1, role: 'editor' },
    { person_id: 1, role: 'viewer' },
    { person_id: 2, role: 'viewer' },
    { person_id: 3, role: 'auditor' },
  ]);
  await db('teams').insert([
    { id: 'finance-team', name: 'Finance' },
    { id: 'all-staff', name: 'All staff' },
  ]);
  await db('team_members').insert([
    { team_id: 'finance-team', member_id: '2', member_type: 'USER' },
    { team_id: 'finance-team', member_id: '5', member_type: 'USER' },
    { team_id: 'all-staff', member_id: 'finance-team', member_type: 'GROUP' },
    { team_id: 'all-staff', member_id: '1', member_type: 'USER' },
    { team_id: 'all-staff', member_id: '3', member_type: 'USER' },
  ]);
  const ids = Array.from({ length: DOCUMENT_COUNT }, (_, i) => i + 1);
  await db('documents').insert(ids.map((i) => documentRow(source, i)));
  await db('document_access').insert(ids.flatMap(accessRows));
}

/** The fixture's mapping; `mode` picks how incremental runs find changes. */
export function fixtureMapping(mode: 'modified' | 'changes' | 'none' = 'modified'): SqlMappingInput {
  return {
    version: 1,
    documents: {
      table: 'documents',
      id: 'id',
      title: 'title',
      body: 'body',
      urlTemplate: 'https://intranet.example.com/docs/{{id}}?title={{title}}',
      modified: 'updated_at',
      createdBy: 'author',
      attributes: {
        kind: 'kind',
        space: 'space',
        department: 'department',
        level: { column: 'level', type: 'number' },
        tags: { column: 'tags', type: 'list' },
      },
      customAttributes: { kind: 'kind' },
      access: { table: 'document_access', document: 'document_id', principal: 'principal_id', type: 'principal_type' },
    },
    users: {
      table: 'people',
      id: 'id',
      email: 'email',
      name: 'full_name',
      active: 'is_active',
      attributes: { department: 'department', clearance: { column: 'clearance', type: 'number' } },
    },
    roles: { table: 'role_assignments', user: 'person_id', role: 'role' },
    groups: { table: 'teams', id: 'id', name: 'name', members: { table: 'team_members', group: 'team_id', member: 'member_id', type: 'member_type' } },
    incremental: mode === 'changes' ? { mode: 'changes', table: 'document_changes', id: 'document_id', op: 'op', seq: 'seq' } : { mode },
  };
}

/** Writes a mapping as YAML into `dir`; returns its path. */
export function writeMapping(dir: string, mapping: SqlMappingInput, file = 'mapping.yaml'): string {
  const target = path.join(dir, file);
  fs.writeFileSync(target, toYaml(mapping));
  return target;
}

/** Mutations as an application would make them: rows changed with a later timestamp, and a change row logged. */
export class FixtureWriter {
  private clock = FIXTURE_START + 86_400_000;
  constructor(private readonly source: Pick<SqlSource, 'db' | 'ts'>) {}

  async deleteDocuments(ids: readonly number[]): Promise<void> {
    await this.source.db('document_access').whereIn('document_id', ids).delete();
    await this.source.db('documents').whereIn('id', ids).delete();
    await this.source.db('document_changes').insert(ids.map((id) => ({ document_id: id, op: 'delete' })));
  }

  async updateDocument(id: number, values: Record<string, unknown>): Promise<void> {
    this.clock += 60_000;
    await this.source
      .db('documents')
      .where({ id })
      .update({ ...values, updated_at: this.source.ts(this.clock) });
    await this.source.db('document_changes').insert({ document_id: id, op: 'update' });
  }

  async insertDocument(id: number, values: Record<string, unknown> = {}): Promise<void> {
    this.clock += 60_000;
    await this.source.db('documents').insert({ ...documentRow(this.source, id), ...values, updated_at: this.source.ts(this.clock) });
    await this.source.db('document_changes').insert({ document_id: id, op: 'insert' });
  }
}
