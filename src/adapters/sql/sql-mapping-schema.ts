import { z } from 'zod';

/**
 * The SQL adapter's mapping file (YAML or JSON): which table or query gives documents, users,
 * role assignments and groups, and which of their columns mean what. Configuration, not code:
 * table and column names are identifiers (quoted by knex, never spliced into SQL); a `query` is
 * the operator's own SQL, run as written inside `select … from (<query>) as src`, with only
 * bound parameters added (checkpoints, id lists). docs/sql-adapter.md documents every key.
 */

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_$]*$/;
const column = z
  .string({ message: 'expected a column name' })
  .regex(IDENTIFIER, { message: 'expected a column name (letters, digits, _ and $; not starting with a digit)' });
const table = z
  .string({ message: 'expected a table name' })
  .regex(/^[A-Za-z_][A-Za-z0-9_$]*(\.[A-Za-z_][A-Za-z0-9_$]*)?$/, { message: 'expected a table name, optionally schema-qualified (schema.table)' });
/** A trailing `;` would break the `(<query>) as src` wrapper; anything else is the operator's SQL. */
const query = z
  .string({ message: 'expected an SQL select statement' })
  .transform((q) => q.trim().replace(/;+\s*$/, ''))
  .refine((q) => /^(select|with)\b/i.test(q), { message: 'expected one SQL statement starting with SELECT or WITH' })
  .refine((q) => !q.includes(';'), { message: 'expected one SQL statement (no ";" inside)' })
  // Drivers take `?` for a bound parameter; the adapter binds its own around the query.
  .refine((q) => !q.includes('?'), { message: 'may not contain "?" (drivers read it as a parameter): use a function instead of a ? operator' });

/** `table` or `query`, exactly one: where the rows of a mapping come from. */
const rowSource = { table: table.optional(), query: query.optional() };
function exactlyOneSource(value: { table?: string | undefined; query?: string | undefined }, ctx: z.RefinementCtx): void {
  if ((value.table === undefined) === (value.query === undefined))
    ctx.addIssue({ code: 'custom', path: ['table'], message: 'give exactly one of table or query' });
}

export const ATTRIBUTE_TYPES = ['auto', 'string', 'number', 'boolean', 'list'] as const;
export type AttributeType = (typeof ATTRIBUTE_TYPES)[number];

/** An attribute: a column name, or the column with the type its values are read as. */
const attribute = z.union(
  [
    column.transform((c) => ({ column: c, type: 'auto' as AttributeType, separator: ',' })),
    z.strictObject({
      column,
      type: z.enum(ATTRIBUTE_TYPES, { message: `expected one of ${ATTRIBUTE_TYPES.join(', ')}` }).default('auto'),
      /** For `list` values held as delimited text. */
      separator: z.string().min(1).default(','),
    }),
  ],
  { message: 'expected a column name or { column, type }' },
);
export type AttributeMapping = z.infer<typeof attribute>;

/** Policy inputs: attribute name → column. Names as policies spell them. */
const attributes = z.record(z.string().regex(/^[A-Za-z_][A-Za-z0-9_.-]*$/, { message: 'expected an attribute name (letters, digits, _ . -)' }), attribute);

/**
 * Attributes held one per row (a key-value table): `owner` is the user's or document's id, `name`
 * the attribute's name, `value` its value; several rows with one name make a list. `types` says
 * how each name's values are read (default `auto`).
 */
const attributeRows = z
  .strictObject({
    ...rowSource,
    owner: column,
    name: column,
    value: column,
    types: z.record(z.string().min(1), z.enum(ATTRIBUTE_TYPES, { message: `expected one of ${ATTRIBUTE_TYPES.join(', ')}` })).default({}),
  })
  .superRefine(exactlyOneSource);
export type AttributeRowsMapping = z.infer<typeof attributeRows>;

const PRINCIPAL_TYPES = ['USER', 'GROUP', 'EVERYONE'] as const;

const access = z
  .strictObject({
    ...rowSource,
    /** The document's id. */
    document: column,
    /** The user's or group's id (ignored for EVERYONE rows). */
    principal: column,
    /** USER, GROUP or EVERYONE (any case); absent: every row is `defaultType`. */
    type: column.optional(),
    defaultType: z.enum(['USER', 'GROUP'], { message: 'expected USER or GROUP' }).default('USER'),
  })
  .superRefine(exactlyOneSource);

const documents = z
  .strictObject({
    ...rowSource,
    id: column,
    title: column,
    /** The document's body: HTML, or plain text (`bodyFormat: text`). */
    body: column.optional(),
    bodyFormat: z.enum(['html', 'text'], { message: 'expected html or text' }).default('html'),
    /** A mustache template file (relative to the mapping file) the row is rendered with. */
    template: z.string().min(1).optional(),
    /** The same, inline. */
    html: z.string().min(1).optional(),
    /** A column holding the document's absolute URL… */
    url: column.optional(),
    /** …or a mustache template of it; values are percent-encoded (`https://wiki.example.com/pages/{{id}}`). */
    urlTemplate: z.string().min(1).optional(),
    /** When the row last changed: incremental runs by modified time read rows past it. */
    modified: column.optional(),
    /**
     * With `modified`: `when-changed` (the default) lists documents without their content and reads a
     * page only when its row's listed values (the modified time among them) change; `every-run` reads
     * every listed row's content, for sources whose bodies change without their modified time moving.
     */
    contentReads: z.enum(['when-changed', 'every-run'], { message: 'expected when-changed or every-run' }).default('when-changed'),
    createdAt: column.optional(),
    createdBy: column.optional(),
    modifiedBy: column.optional(),
    attributes: attributes.default({}),
    /** More policy inputs, one per row of a key-value table (a column of the same name wins). */
    attributeRows: attributeRows.optional(),
    /** Served to the platform as the file's custom attributes (strings). */
    customAttributes: z.record(z.string().min(1), column).default({}),
    /** Explicit access lists; absent: documents carry none (an access policy grants access). */
    access: access.optional(),
  })
  .superRefine(exactlyOneSource)
  .superRefine((d, ctx) => {
    if ((d.url === undefined) === (d.urlTemplate === undefined))
      ctx.addIssue({ code: 'custom', path: ['url'], message: 'give exactly one of url (a column) or urlTemplate' });
    if (d.template !== undefined && d.html !== undefined)
      ctx.addIssue({ code: 'custom', path: ['template'], message: 'give template (a file) or html (inline), not both' });
    if (d.body === undefined && d.template === undefined && d.html === undefined)
      ctx.addIssue({ code: 'custom', path: ['body'], message: 'give a body column, a template or html' });
  });

const users = z
  .strictObject({
    ...rowSource,
    id: column,
    email: column,
    name: column.optional(),
    /** Truthy (true, 1, 't', 'yes', 'active'...) for active users; absent: every user is active. */
    active: column.optional(),
    attributes: attributes.default({}),
    attributeRows: attributeRows.optional(),
  })
  .superRefine(exactlyOneSource);

const roles = z.strictObject({ ...rowSource, user: column, role: column }).superRefine(exactlyOneSource);

const members = z
  .strictObject({
    ...rowSource,
    group: column,
    member: column,
    /** USER or GROUP (any case); absent: every member is a user. */
    type: column.optional(),
  })
  .superRefine(exactlyOneSource);

const groups = z.strictObject({ ...rowSource, id: column, name: column.optional(), members }).superRefine(exactlyOneSource);

const incremental = z.discriminatedUnion(
  'mode',
  [
    z.strictObject({
      mode: z.literal('modified'),
      /** Re-read rows this far behind the last one read (seconds for timestamps, units for numbers). */
      overlap: z.number().nonnegative({ message: 'expected 0 or more' }).optional(),
    }),
    z
      .strictObject({
        mode: z.literal('changes'),
        ...rowSource,
        /** The changed document's id. */
        id: column,
        /** What happened: a delete when it is one of `deleteOps` (any case), else an insert or update. */
        op: column,
        /** Increasing with every change (a sequence, an auto-increment). */
        seq: column,
        deleteOps: z.array(z.string().min(1)).min(1).default(['d', 'delete', 'deleted', 'remove', 'removed']),
        overlap: z.number().nonnegative({ message: 'expected 0 or more' }).optional(),
      })
      .superRefine(exactlyOneSource),
    z.strictObject({ mode: z.literal('none') }),
  ],
  { message: 'expected mode: modified, changes or none' },
);

export const sqlMappingSchema = z
  .strictObject({
    version: z.literal(1, { message: 'expected version: 1' }).default(1),
    documents,
    users: users.optional(),
    roles: roles.optional(),
    groups: groups.optional(),
    /** Absent: by modified time when documents have a `modified` column, else full runs only. */
    incremental: incremental.optional(),
  })
  .superRefine((m, ctx) => {
    if (m.incremental?.mode === 'modified' && m.documents.modified === undefined) {
      ctx.addIssue({ code: 'custom', path: ['documents', 'modified'], message: 'incremental mode "modified" needs the documents\' modified column' });
    }
    if (m.roles !== undefined && m.users === undefined) ctx.addIssue({ code: 'custom', path: ['roles'], message: 'role assignments need users' });
  });

export type SqlMappingInput = z.input<typeof sqlMappingSchema>;
export type SqlMapping = z.infer<typeof sqlMappingSchema>;
export type DocumentsMapping = SqlMapping['documents'];
export type UsersMapping = NonNullable<SqlMapping['users']>;
export type GroupsMapping = NonNullable<SqlMapping['groups']>;
export type IncrementalMapping = NonNullable<SqlMapping['incremental']>;
/** Any mapping with a table or a query. */
export interface RowSource {
  table?: string | undefined;
  query?: string | undefined;
}
export { PRINCIPAL_TYPES };
