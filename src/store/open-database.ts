// DATABASE_URL (docs/deploying.md): the data in PostgreSQL through the optional package plainrest-postgres, loaded
// only here and only when asked for, so plainrest keeps no runtime dependency (without it, one line says what to
// install). Stored data the declaration no longer fits is refused in the data directory's words (declaration-fit.ts),
// and nothing is changed. Also for the command line: `plainrest copy`, and `plainrest token`'s user found by email.

import type { Logger } from '../logging/logger.ts';
import type { ResourceTable } from '../resources/definition.ts';
import type { JsonValue, StoredRecord } from '../records/json.ts';
import { jsonEqual } from '../records/json.ts';
import { isIdOfKind, type IdKind, type RecordId } from '../records/record-id.ts';
import { describeChanges } from './describe-changes.ts';
import type { RecordReader } from '../resources/definition.ts';
import type { Retention } from '../feed/event-log.ts';
import { StartupError } from './data-directory.ts';
import { lackingRequired, notTheSingleton, recordsWithIds, removedCollection } from './declaration-fit.ts';
import { recordWords } from './search-words.ts';
import type { Change, Store } from './store.ts';
import { StoreUnavailable } from './store.ts';

export const DATABASE_PACKAGE = 'plainrest-postgres';

/**
 * Stored data the declaration no longer fits, as the PostgreSQL package's schema check finds it: the facts, which
 * plainrest words as for a data directory.
 */
export type SchemaProblem =
  | {
      readonly kind: 'removed-collection' | 'not-the-singleton';
      readonly collection: string;
      readonly count: number;
      readonly firstIds: readonly RecordId[];
    }
  | {
      readonly kind: 'missing-required' | 'undeclared-property';
      readonly collection: string;
      readonly property: string;
      readonly count: number;
      readonly firstIds: readonly RecordId[];
    }
  | {
      /** The table's `id` column is of another type than the declared `x-id` asks (ids are never converted). */
      readonly kind: 'wrong-id-kind';
      readonly collection: string;
      readonly declared: IdKind;
      /** The column's type: `bigint`, `uuid`, `text`. */
      readonly stored: string;
      readonly count: number;
      readonly firstIds: readonly RecordId[];
    }
  | {
      readonly kind: 'wrong-kind';
      readonly collection: string;
      readonly property: string;
      readonly declared: string;
      readonly count: number;
      readonly firstIds: readonly RecordId[];
    };

/**
 * One collection as `plainrest copy` moves it: its records in id order, and the id the next record created gets
 * (plainrest-postgres: CollectionCopy).
 */
export interface CollectionCopy {
  readonly records: readonly StoredRecord[];
  readonly nextId: number;
}

type Unreachable = { readonly kind: 'unreachable'; readonly reason: string };
type Misfit = { readonly kind: 'misfit'; readonly problems: readonly SchemaProblem[] };

/** What plainrest uses of the package. */
interface DatabasePackage {
  openPostgresStore(options: {
    readonly url: string;
    readonly resources: ResourceTable;
    readonly kit: {
      unavailable(detail: string): Error;
      recordWords(record: StoredRecord, fields: readonly string[]): string[];
      describeChanges(table: ResourceTable, changes: readonly Change[], store: RecordReader): readonly Change[];
      jsonEqual(a: JsonValue, b: JsonValue): boolean;
      isIdOfKind(value: unknown, kind: IdKind): boolean;
    };
    readonly events?: Retention;
    readonly onUnreachable?: (reason: string, retryInMs: number) => void;
    readonly onRefused?: (problems: readonly SchemaProblem[]) => void;
    readonly onFailed?: (reason: string) => void;
    readonly onReady?: () => void;
  }): Promise<{ readonly store?: Store; readonly problems?: readonly SchemaProblem[] }>;
  readAllRecords(
    url: string,
    resources: ResourceTable,
  ): Promise<
    { readonly kind: 'read'; readonly collections: ReadonlyMap<string, CollectionCopy> } | Misfit | Unreachable
  >;
  writeAllRecords(
    url: string,
    resources: ResourceTable,
    collections: ReadonlyMap<string, CollectionCopy>,
  ): Promise<
    | { readonly kind: 'written' }
    | { readonly kind: 'not-empty'; readonly tables: readonly string[] }
    | Misfit
    | Unreachable
  >;
  findUserByEmail(
    url: string,
    email: string,
  ): Promise<
    | { readonly kind: 'found'; readonly record: StoredRecord }
    | { readonly kind: 'missing' }
    | { readonly kind: 'no-table' }
    | Unreachable
  >;
}

/**
 * What the core lends the package, which must not import plainrest (a runtime dependency): the 503,
 * search words, the change feed's event facts (describe-changes.ts) and what an id of each kind is.
 */
const KIT = {
  recordWords,
  describeChanges,
  jsonEqual,
  isIdOfKind,
  unavailable: (detail: string): Error => new StoreUnavailable(detail),
};

/** `events`: how much of the change feed's history the database keeps (config.events). */
export async function openDatabase(
  url: string,
  resources: ResourceTable,
  logger: Logger,
  events?: Retention,
): Promise<Store> {
  const opened = await (
    await loadPackage()
  ).openPostgresStore({
    url,
    resources,
    kit: KIT,
    ...(events === undefined ? {} : { events: { kept: events.kept, keptForMs: events.keptForMs } }),
    onUnreachable: (reason, retryInMs) =>
      logger.warn(`the database cannot be reached (${reason}); trying again in ${retryInMs / 1000} s`),
    onRefused: (problems) => logger.error(refusal(problems)),
    onFailed: (reason) => logger.error(`the database could not be prepared: ${reason}; the server stays not ready`),
    onReady: () => logger.info('the database answers: ready'),
  });
  if (opened.problems !== undefined && opened.problems.length > 0) throw new StartupError(refusal(opened.problems));
  if (opened.store === undefined) throw new StartupError(`${DATABASE_PACKAGE} opened no store`);
  return opened.store;
}

/** The database could not be reached: the system's code (ECONNREFUSED) or PostgreSQL's message. */
export class DatabaseUnreachable extends Error {}

/**
 * Every record of a database, for `plainrest copy`, with each collection's next id; the
 * tables are brought to the declaration first, as a start would, and stored data the
 * declaration no longer fits is refused in a start's words.
 */
export async function readAllFromDatabase(
  url: string,
  resources: ResourceTable,
): Promise<ReadonlyMap<string, CollectionCopy>> {
  const read = await (await loadPackage()).readAllRecords(url, resources);
  if (read.kind === 'read') return read.collections;
  throw read.kind === 'misfit' ? new StartupError(refusal(read.problems)) : new DatabaseUnreachable(read.reason);
}

/**
 * Writes every record into a database in one transaction; `not-empty` when a plainrest table holds a row, and then
 * nothing was changed.
 */
export async function writeAllToDatabase(
  url: string,
  resources: ResourceTable,
  collections: ReadonlyMap<string, CollectionCopy>,
): Promise<'written' | 'not-empty'> {
  const written = await (await loadPackage()).writeAllRecords(url, resources, collections);
  if (written.kind === 'written' || written.kind === 'not-empty') return written.kind;
  throw written.kind === 'misfit'
    ? new StartupError(refusal(written.problems))
    : new DatabaseUnreachable(written.reason);
}

/**
 * The user with this email (ignoring case) for `plainrest token`; `undefined` when none has it, `no-users` before the
 * first start made the table.
 */
export async function findUserInDatabase(url: string, email: string): Promise<StoredRecord | undefined | 'no-users'> {
  const found = await (await loadPackage()).findUserByEmail(url, email);
  if (found.kind === 'unreachable') throw new DatabaseUnreachable(found.reason);
  return found.kind === 'found' ? found.record : found.kind === 'missing' ? undefined : 'no-users';
}

/**
 * Why a database refused the command line's work, to follow its name in a line: `cannot be
 * reached (ECONNREFUSED)`, or `answered: <message>` for an error PostgreSQL reported (no
 * such database, a wrong password);
 * `undefined` for anything else, which is a bug to show in full.
 */
export function databaseProblem(error: unknown): string | undefined {
  if (error instanceof DatabaseUnreachable) return `cannot be reached (${error.message})`;
  const { code, severity } = error as { code?: unknown; severity?: unknown };
  if (error instanceof Error && typeof severity === 'string' && typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code))
    return `answered: ${error.message}`;
  return undefined;
}

async function loadPackage(): Promise<DatabasePackage> {
  // A name in a variable: plainrest's build does not look for the optional package.
  const name: string = DATABASE_PACKAGE;
  try {
    return (await import(name)) as DatabasePackage;
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new StartupError(
      `DATABASE_URL needs the optional package ${DATABASE_PACKAGE}: npm install ${DATABASE_PACKAGE}`,
    );
  }
}

/** The kind of id a table's `id` column holds, by the column's type. */
const STORED_IDS: Readonly<Record<string, string>> = { bigint: 'integers', uuid: 'uuids', text: 'strings' };

function refusal(problems: readonly SchemaProblem[]): string {
  return (
    `the data in the database no longer fits the declaration: ${problems.map(describe).join('; ')}; ` +
    `nothing was changed`
  );
}

function describe(problem: SchemaProblem): string {
  const { collection, count, firstIds } = problem;
  const records = recordsWithIds(count, firstIds);
  switch (problem.kind) {
    case 'removed-collection':
      return `${removedCollection(collection, count, firstIds)}, or delete its rows`;
    case 'missing-required':
      return lackingRequired(collection, problem.property, count, firstIds);
    case 'not-the-singleton':
      return notTheSingleton(collection, count, firstIds);
    case 'wrong-id-kind':
      return (
        `${collection}: its table's ids are ${STORED_IDS[problem.stored] ?? problem.stored} (${records}) but ` +
        `${collection} declares "x-id": "${problem.declared}"; declare the ids it holds, or drop or rename the table`
      );
    case 'wrong-kind':
      return (
        `${collection}: ${records} hold "${problem.property}" values that are not ${problem.declared}; ` +
        `correct the values or the declaration`
      );
    case 'undeclared-property':
      return (
        `${collection}: ${records} have "${problem.property}", which ${collection} do not declare; ` +
        `remove the values or declare it`
      );
  }
}
