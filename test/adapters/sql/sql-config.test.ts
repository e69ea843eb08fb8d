import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { findAdapterFactory } from '../../../src/adapters/adapter-registry';
import { isIncremental, reconcilesAccess } from '../../../src/adapters/adapter';
import {
  createSqlAdapter,
  loadSqlMapping,
  parseDatabaseUrl,
  resolveSqlMapping,
  sqlAdapterFactory,
  sqlConfigFromEnv,
  SQL_SETTINGS,
  SqlMappingError,
} from '../../../src/adapters/sql';
import { runCli } from '../../e2e/cli-process';
import { fixtureMapping, writeMapping } from '../../helpers/sql-fixture';

const SECRET = 's3cret-pa55';

describe('sql adapter settings', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-sql-cfg-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('is registered and builds an incremental, access-reconciling adapter without any I/O', async () => {
    expect(findAdapterFactory('sql')).toBe(sqlAdapterFactory);
    const mapping = writeMapping(dir, fixtureMapping('modified'));
    const adapter = await sqlAdapterFactory.create(
      { SQL_DATABASE_URL: `postgres://reader:${SECRET}@db.invalid:5432/intranet`, SQL_MAPPING: mapping },
      { logger: undefined as never },
    );
    expect(adapter.name).toBe('sql');
    expect(isIncremental(adapter) && reconcilesAccess(adapter)).toBe(true);
    expect(JSON.stringify(sqlAdapterFactory.settings)).not.toContain(SECRET);
    expect(sqlAdapterFactory.settings.map((s) => s.env)).toEqual(SQL_SETTINGS.map((s) => s.env));
  });

  it('is full-only when the mapping has no way to find changes', () => {
    const mapping = fixtureMapping('none');
    const adapter = createSqlAdapter({ connection: parseDatabaseUrl('sqlite:x.db'), mapping: resolveSqlMapping(mapping), sourceName: 'hr', pageSize: 10 });
    expect({ name: adapter.name, incremental: isIncremental(adapter) }).toEqual({ name: 'hr', incremental: false });
    const { incremental: _none, ...withoutIncremental } = mapping;
    const { modified: _m, ...docs } = withoutIncremental.documents;
    expect(resolveSqlMapping({ ...withoutIncremental, documents: docs }).incremental).toEqual({ mode: 'none' });
    expect(resolveSqlMapping(withoutIncremental).incremental).toEqual({ mode: 'modified' });
  });

  it('names every missing or bad variable, and never the password', () => {
    expect(() => sqlConfigFromEnv({})).toThrow('Invalid sql adapter settings: SQL_DATABASE_URL: is required; SQL_MAPPING: is required');
    const mapping = writeMapping(dir, fixtureMapping());
    const bad = { SQL_DATABASE_URL: `oracle://u:${SECRET}@h/db`, SQL_MAPPING: mapping, SQL_SOURCE_NAME: 'Bad Name', SQL_PAGE_SIZE: '0' };
    let message = '';
    try {
      sqlConfigFromEnv(bad);
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(/SQL_SOURCE_NAME: expected lower-case letters/);
    expect(message).toMatch(/SQL_PAGE_SIZE: at least 1/);
    expect(() => sqlConfigFromEnv({ ...bad, SQL_SOURCE_NAME: 'hr', SQL_PAGE_SIZE: '50' })).toThrow(/SQL_DATABASE_URL: unsupported scheme "oracle:"/);
    expect(message).not.toContain(SECRET);
  });

  it('reads each kind of URL, masking the password', () => {
    expect(parseDatabaseUrl(`postgresql://u:${SECRET}@h:5433/db`)).toMatchObject({ dialect: 'postgres', redacted: 'postgresql://u:***@h:5433/db' });
    const maria = parseDatabaseUrl(`mariadb://u:${SECRET}@h/db`);
    expect(maria).toMatchObject({
      dialect: 'mysql',
      knexConfig: { client: 'mysql2', connection: { host: 'h', port: 3306, user: 'u', password: SECRET, database: 'db', timezone: 'Z' } },
    });
    expect(maria.redacted).not.toContain(SECRET);
    expect(parseDatabaseUrl('sqlite:data/x.db')).toMatchObject({
      dialect: 'sqlite',
      knexConfig: { client: 'better-sqlite3', connection: { filename: path.resolve('data/x.db'), options: { readonly: true } } },
    });
    expect(() => parseDatabaseUrl('not a url')).toThrow(/expected a URL such as/);
  });

  it('`sync --help` lists the SQL adapter and its settings', async () => {
    const r = await runCli(['sync', '--help'], {});
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^ {2}sql: Documents, users, role assignments/m);
    for (const s of SQL_SETTINGS) expect(r.stdout).toContain(s.env);
    expect(r.stdout).toContain('SQL_PAGE_SIZE (default: 500)');
  });
});

describe('sql mapping file', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'gw-sql-map-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const problems = (input: unknown): string => {
    try {
      resolveSqlMapping(input);
      return 'valid';
    } catch (error) {
      expect(error).toBeInstanceOf(SqlMappingError);
      return (error as Error).message;
    }
  };

  it('loads YAML and JSON alike, resolving a template file next to the mapping', () => {
    fs.writeFileSync(path.join(dir, 'doc.mustache'), '<h1>{{title}}</h1>');
    const mapping = { ...fixtureMapping(), documents: { ...fixtureMapping().documents, body: undefined, template: 'doc.mustache' } };
    const yaml = loadSqlMapping(writeMapping(dir, mapping));
    fs.writeFileSync(path.join(dir, 'mapping.json'), JSON.stringify(mapping));
    const json = loadSqlMapping(path.join(dir, 'mapping.json'));
    expect(yaml.template).toBe('<h1>{{title}}</h1>');
    expect(json).toEqual(yaml);
  });

  it('changes its fingerprint with the mapping and with the template', () => {
    const a = resolveSqlMapping(fixtureMapping());
    expect(resolveSqlMapping(fixtureMapping()).fingerprint).toBe(a.fingerprint);
    expect(resolveSqlMapping({ ...fixtureMapping(), documents: { ...fixtureMapping().documents, title: 'id' } }).fingerprint).not.toBe(a.fingerprint);
    expect(resolveSqlMapping({ ...fixtureMapping(), documents: { ...fixtureMapping().documents, html: '<p>{{title}}</p>' } }).fingerprint).not.toBe(
      a.fingerprint,
    );
  });

  it('refuses what it cannot run safely or unambiguously, naming each key', () => {
    const base = fixtureMapping();
    const docs = base.documents;
    expect(problems({ ...base, documents: { ...docs, table: 'documents; drop table people' } })).toMatch(/documents\.table: expected a table name/);
    expect(problems({ ...base, documents: { ...docs, id: 'id"); --' } })).toMatch(/documents\.id: expected a column name/);
    expect(problems({ ...base, documents: { ...docs, contentReads: 'sometimes' } })).toMatch(/documents\.contentReads: expected when-changed or every-run/);
    expect(problems({ ...base, documents: { ...docs, query: 'select * from documents' } })).toMatch(/documents\.table: give exactly one of table or query/);
    const { table: _t, ...noTable } = docs;
    expect(problems({ ...base, documents: { ...noTable, query: 'select * from a; delete from b' } })).toMatch(
      /documents\.query: expected one SQL statement \(no ";" inside\)/,
    );
    expect(problems({ ...base, documents: { ...noTable, query: 'delete from documents' } })).toMatch(
      /documents\.query: expected one SQL statement starting with SELECT or WITH/,
    );
    expect(problems({ ...base, documents: { ...noTable, query: "select * from documents where meta ? 'x'" } })).toMatch(
      /documents\.query: may not contain "\?"/,
    );
    expect(problems({ ...base, documents: { ...noTable, query: ' select * from documents ; ' } })).toBe('valid');
    expect(problems({ ...base, documents: { ...docs, url: 'link' } })).toMatch(/documents\.url: give exactly one of url \(a column\) or urlTemplate/);
    expect(problems({ ...base, documents: { ...docs, body: undefined } })).toMatch(/documents\.body: give a body column, a template or html/);
    expect(problems({ ...base, documents: { ...docs, colour: 'red' } })).toMatch(/documents: Unrecognized key: "colour"/);
    expect(problems({ ...base, documents: { ...docs, attributes: { level: { column: 'level', type: 'float' } } } })).toMatch(/documents\.attributes\.level/);
    expect(problems({ ...base, incremental: { mode: 'changes', table: 'c', id: 'id', seq: 'seq' } })).toMatch(/incremental\.op/);
    expect(problems({ ...base, incremental: { mode: 'sometimes' } })).toMatch(/incremental/);
    expect(problems({ ...base, documents: { ...docs, modified: undefined }, incremental: { mode: 'modified' } })).toMatch(
      /documents\.modified: incremental mode "modified" needs/,
    );
    expect(problems({ ...base, users: undefined })).toMatch(/roles: role assignments need users/);
    expect(problems({ ...base, version: 2 })).toMatch(/version: expected version: 1/);
  });

  it('says which file is unreadable or unparsable', () => {
    expect(() => loadSqlMapping(path.join(dir, 'nope.yaml'))).toThrow(/Cannot read the SQL mapping file .*nope\.yaml: ENOENT/);
    fs.writeFileSync(path.join(dir, 'bad.yaml'), 'documents: [unclosed');
    expect(() => loadSqlMapping(path.join(dir, 'bad.yaml'))).toThrow(/bad\.yaml is not valid YAML/);
    fs.writeFileSync(path.join(dir, 'm.yaml'), 'documents:\n  table: documents\n');
    expect(() => loadSqlMapping(path.join(dir, 'm.yaml'))).toThrow(/Invalid SQL mapping .*m\.yaml: documents\.id: /);
  });
});
