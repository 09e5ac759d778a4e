// The tables a declaration needs (docs/deploying.md): a table per collection, named by its plural, a column per
// property under its stored name (a password's `password_hash`), foreign keys, a unique index per `x-unique` and per
// issued secret, and an index per filter, sort key and parent for lists (README: Lists). Pure: turns a resource table
// into plans and plans into SQL; schema-migration.ts applies them.

import type { FieldRule, IdKind, ResourceDefinition, ResourceTable } from 'plainrest';

export interface ColumnPlan {
  readonly name: string;
  /** As information_schema.columns.data_type spells it, which is also valid DDL. */
  readonly type: 'bigint' | 'uuid' | 'text' | 'double precision' | 'boolean' | 'jsonb' | 'timestamp with time zone';
  /** Only `id`, the timestamps, the parent column, and required properties (not those only requests must give). */
  readonly notNull: boolean;
  readonly references?: { readonly table: string; readonly cascade: boolean };
  /** A text enum's values: a stored value outside them no longer fits. */
  readonly values?: readonly string[];
}

export interface IndexPlan {
  readonly name: string;
  readonly unique: boolean;
  /** SQL expressions: quoted column names, or `lower("email")`. */
  readonly keys: readonly string[];
  /** A GIN index (the words of a search) rather than a B-tree. */
  readonly gin?: boolean;
}

export interface TablePlan {
  readonly table: string;
  /** The kind of its ids (README: Your own resources, ids), which its `id` column's type follows (ID_TYPES). */
  readonly idKind: IdKind;
  readonly columns: readonly ColumnPlan[];
  readonly indexes: readonly IndexPlan[];
  /** The `x-search` properties, whose words the column SEARCH_COLUMN holds. */
  readonly searchFields?: readonly string[];
  /** A singleton's table: one row, whose id is 1 (README: Your own resources, singletons). */
  readonly singleton?: true;
}

/**
 * plainrest's own column of a searchable table: the words of its `x-search` properties, as a jsonb array under a GIN
 * index.
 */
export const SEARCH_COLUMN = '__search';

/**
 * The `id` column's type, and that of a column naming such a record (a parent or a reference): integers as bigint
 * from an identity, uuids as PostgreSQL's uuid (which prints lower-case), chosen strings as text compared by code point
 * (createTableStatement).
 */
export const ID_TYPES = { integer: 'bigint', uuid: 'uuid', string: 'text' } as const satisfies Record<
  IdKind,
  ColumnPlan['type']
>;

/** Double quotes around a name (declared names are already lower-case letters, digits and `_`). */
export function quoted(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/**
 * One plan per declared collection, parents before the collections nested under them or referencing them, then the
 * idempotency keys.
 */
export function schemaOf(resources: ResourceTable): TablePlan[] {
  const kinds = new Map(resources.resources.map((definition) => [definition.collection, definition.idKind]));
  const kindOf = (collection: string): IdKind => kinds.get(collection) ?? 'integer';
  return [...creationOrder(resources.resources).map((definition) => tablePlan(definition, kindOf)), IDEMPOTENCY_KEYS];
}

/**
 * The saved answers to POSTs with an Idempotency-Key (plainrest's http/idempotency.ts),
 * written in the same transaction as the record they created: found by scope (caller and
 * key), purged oldest first.
 */
const IDEMPOTENCY_KEYS: TablePlan = {
  table: 'idempotency_keys',
  idKind: 'integer',
  columns: [
    { name: 'id', type: 'bigint', notNull: true },
    { name: 'scope', type: 'text', notNull: true },
    { name: 'fingerprint', type: 'text', notNull: true },
    { name: 'status', type: 'bigint', notNull: true },
    { name: 'body', type: 'text', notNull: true },
    { name: 'location', type: 'text', notNull: false },
    { name: 'etag', type: 'text', notNull: false },
    { name: 'created_at', type: 'timestamp with time zone', notNull: true },
    { name: 'updated_at', type: 'timestamp with time zone', notNull: true },
  ],
  indexes: [{ name: 'idempotency_keys_scope', unique: false, keys: ['"scope"', '"id"'] }],
};

function tablePlan(definition: ResourceDefinition, kindOf: (collection: string) => IdKind): TablePlan {
  const columns: ColumnPlan[] = [];
  const indexes: IndexPlan[] = [];
  const table = definition.collection;
  const parentField = definition.parent?.field;
  /**
   * List indexes of a nested collection start with the parent: its lists are always within one parent. Each ends in
   * `id`, the order of ties.
   */
  const listKeys = (key: string): string[] => [
    ...(parentField === undefined ? [] : [quoted(parentField)]),
    key,
    quoted('id'),
  ];
  for (const rule of definition.fields) {
    const name = rule.storedAs ?? rule.name;
    if (rule.type === 'id') {
      columns.push({ name, type: ID_TYPES[definition.idKind], notNull: true });
      continue;
    }
    const isParent = name === parentField;
    // The parent with ON DELETE CASCADE (deleting a user deletes their orders); an `x-references` column without, so
    // deleting a referenced record fails (409 `still_referenced`).
    const references =
      isParent && definition.parent !== undefined
        ? { table: definition.parent.definition.collection, cascade: true }
        : rule.references !== undefined
          ? { table: rule.references, cascade: false }
          : undefined;
    const type = references === undefined ? columnType(rule) : ID_TYPES[kindOf(references.table)];
    columns.push({
      name,
      type,
      ...(rule.type === 'enum' && type === 'text' ? { values: (rule.values ?? []) as string[] } : {}),
      // A provider's user may lack an email (README: Provider tokens): that column allows NULL, its unique index still
      // holds, NULLs being distinct.
      notNull:
        rule.type === 'timestamp' ||
        isParent ||
        (rule.required === true && rule.requiredOfRequestsOnly !== true && rule.nullable !== true),
      ...(references === undefined ? {} : { references }),
    });
    if (isParent)
      indexes.push({ name: indexName(table, name, 'parent'), unique: false, keys: [quoted(name), quoted('id')] });
    // An issued secret's hash (an API key's) is looked up on every request its key makes, and no two keys share one.
    if (rule.unique !== undefined || rule.issued !== undefined) {
      indexes.push({
        name: indexName(table, name, 'unique'),
        unique: true,
        keys: [rule.unique === 'ignore-case' ? `lower(${quoted(name)})` : quoted(name)],
      });
    }
    if ((rule.filter === true || rule.sort === true || rule.references !== undefined) && !isParent) {
      // A filter on a value unique ignoring case matches ignoring case (an email): its index too.
      const key = rule.unique === 'ignore-case' && rule.filter === true ? `lower(${quoted(name)})` : quoted(name);
      indexes.push({ name: indexName(table, name, 'list'), unique: false, keys: listKeys(key) });
    }
  }
  const searchFields = definition.fields.filter((rule) => rule.search === true).map((rule) => rule.name);
  const idKind = definition.idKind;
  // A singleton has no list, so no words to search.
  if (definition.singleton === true) return { table, idKind, columns, indexes, singleton: true };
  if (searchFields.length === 0) return { table, idKind, columns, indexes };
  columns.push({ name: SEARCH_COLUMN, type: 'jsonb', notNull: false });
  indexes.push({ name: indexName(table, 'words', 'search'), unique: false, keys: [quoted(SEARCH_COLUMN)], gin: true });
  return { table, idKind, columns, indexes, searchFields };
}

/** jsonb for arrays, objects, and enums whose values are not all strings. */
function columnType(rule: FieldRule): ColumnPlan['type'] {
  switch (rule.type) {
    case 'timestamp':
      return 'timestamp with time zone';
    case 'integer':
      return 'bigint';
    case 'number':
      return 'double precision';
    case 'boolean':
      return 'boolean';
    case 'enum':
      return (rule.values ?? []).every((value) => typeof value === 'string') ? 'text' : 'jsonb';
    case 'array':
    case 'object':
      return 'jsonb';
    default:
      return 'text';
  }
}

/** `<table>_<column>_<kind>`, cut to PostgreSQL's 63 bytes with a short hash of the whole so that it stays unique. */
function indexName(table: string, column: string, kind: string): string {
  const whole = `${table}_${column}_${kind}`;
  if (whole.length <= 63) return whole;
  let hash = 0;
  for (const char of whole) hash = (hash * 31 + char.charCodeAt(0)) >>> 0;
  return `${whole.slice(0, 54)}_${hash.toString(36).padStart(8, '0').slice(0, 8)}`;
}

/**
 * Parents first, then referenced collections before those that reference them (a reference cycle keeps declaration
 * order).
 */
function creationOrder(definitions: readonly ResourceDefinition[]): ResourceDefinition[] {
  const ordered: ResourceDefinition[] = [];
  const visiting = new Set<ResourceDefinition>();
  const byName = new Map(definitions.map((definition) => [definition.collection, definition]));
  const visit = (definition: ResourceDefinition): void => {
    if (ordered.includes(definition) || visiting.has(definition)) return;
    visiting.add(definition);
    if (definition.parent !== undefined) visit(definition.parent.definition);
    for (const rule of definition.fields) {
      const target = rule.references === undefined ? undefined : byName.get(rule.references);
      if (target !== undefined && target !== definition) visit(target);
    }
    ordered.push(definition);
  };
  for (const definition of definitions) visit(definition);
  return ordered;
}

/**
 * CREATE TABLE for a plan, an integer `id` from an identity sequence (ids are never reused), a chosen string one in
 * the "C" collation (compared by code point, as plainrest orders them); its foreign keys are added separately
 * (foreignKeyStatements), once every table exists.
 */
export function createTableStatement(plan: TablePlan): string {
  const columns = plan.columns.map((column) =>
    column.name === 'id'
      ? `${quoted('id')} ${ID_COLUMNS[plan.idKind]} PRIMARY KEY`
      : `${quoted(column.name)} ${column.type}${column.notNull ? ' NOT NULL' : ''}`,
  );
  return `CREATE TABLE ${quoted(plan.table)} (${columns.join(', ')})`;
}

const ID_COLUMNS: Record<IdKind, string> = {
  integer: 'bigint GENERATED BY DEFAULT AS IDENTITY',
  uuid: 'uuid',
  string: 'text COLLATE "C"',
};

/** A foreign key's constraint name. */
export function foreignKeyName(table: string, column: string): string {
  return indexName(table, column, 'fkey');
}

export function addForeignKeyStatement(table: string, column: ColumnPlan): string {
  const target = column.references as NonNullable<ColumnPlan['references']>;
  return (
    `ALTER TABLE ${quoted(table)} ADD CONSTRAINT ${quoted(foreignKeyName(table, column.name))} ` +
    `FOREIGN KEY (${quoted(column.name)}) REFERENCES ${quoted(target.table)} ` +
    `(${quoted('id')})${target.cascade ? ' ON DELETE CASCADE' : ''}`
  );
}

export function createIndexStatement(table: string, index: IndexPlan): string {
  return (
    `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX IF NOT EXISTS ${quoted(index.name)} ON ` +
    `${quoted(table)}${index.gin === true ? ' USING GIN' : ''} (${index.keys.join(', ')})`
  );
}
