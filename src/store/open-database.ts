// DATABASE_URL (README: Several processes; CONTRACT §12): the data in PostgreSQL through
// the optional package plainrest-postgres, loaded only here and only when asked for, so
// plainrest itself keeps no runtime dependency. Without the package, one line says what
// to install. Stored data that the declaration no longer fits is refused in the words
// the data directory uses (declaration-fit.ts), and nothing is changed.

import type { Logger } from '../config.js';
import type { ResourceTable } from '../declarations/compile-declaration.js';
import { storeUnavailable } from '../http/errors.js';
import { StartupError } from './data-directory.js';
import { lackingRequired, recordsWithIds, removedCollection } from './declaration-fit.js';
import type { Store } from './store.js';
import { NeedData } from './store.js';

export const DATABASE_PACKAGE = 'plainrest-postgres';

/** A fact of the package's schema check (plainrest-postgres: SchemaProblem). */
type SchemaProblem =
  | { readonly kind: 'removed-collection'; readonly collection: string; readonly count: number; readonly firstIds: readonly number[] }
  | { readonly kind: 'missing-required' | 'undeclared-property'; readonly collection: string; readonly property: string; readonly count: number; readonly firstIds: readonly number[] }
  | { readonly kind: 'wrong-kind'; readonly collection: string; readonly property: string; readonly declared: string; readonly count: number; readonly firstIds: readonly number[] };

/** What plainrest uses of the package. */
interface DatabasePackage {
  openPostgresStore(options: {
    readonly url: string;
    readonly resources: ResourceTable;
    readonly kit: { needData(fetch: () => Promise<void>): Error; unavailable(detail: string): Error };
    readonly onUnreachable?: (reason: string, retryInMs: number) => void;
    readonly onRefused?: (problems: readonly SchemaProblem[]) => void;
    readonly onFailed?: (reason: string) => void;
    readonly onReady?: () => void;
  }): Promise<{ readonly store?: Store; readonly problems?: readonly SchemaProblem[] }>;
}

const KIT = {
  needData: (fetch: () => Promise<void>): Error => new NeedData(fetch),
  unavailable: (detail: string): Error => storeUnavailable(detail),
};

export async function openDatabase(url: string, resources: ResourceTable, logger: Logger): Promise<Store> {
  const opened = await (await loadPackage()).openPostgresStore({
    url,
    resources,
    kit: KIT,
    onUnreachable: (reason, retryInMs) => logger.warn(`the database cannot be reached (${reason}); trying again in ${retryInMs / 1000} s`),
    onRefused: (problems) => logger.error(refusal(problems)),
    onFailed: (reason) => logger.error(`the database could not be prepared: ${reason}; the server stays not ready`),
    onReady: () => logger.info('the database answers: ready'),
  });
  if (opened.problems !== undefined && opened.problems.length > 0) throw new StartupError(refusal(opened.problems));
  if (opened.store === undefined) throw new StartupError(`${DATABASE_PACKAGE} opened no store`);
  return opened.store;
}

async function loadPackage(): Promise<DatabasePackage> {
  // A name in a variable: plainrest's build does not look for the optional package.
  const name: string = DATABASE_PACKAGE;
  try {
    return (await import(name)) as DatabasePackage;
  } catch (error) {
    if ((error as { code?: unknown }).code !== 'ERR_MODULE_NOT_FOUND') throw error;
    throw new StartupError(`DATABASE_URL needs the optional package ${DATABASE_PACKAGE}: npm install ${DATABASE_PACKAGE}`);
  }
}

function refusal(problems: readonly SchemaProblem[]): string {
  return `the data in the database no longer fits the declaration: ${problems.map(describe).join('; ')}; nothing was changed`;
}

function describe(problem: SchemaProblem): string {
  const { collection, count, firstIds } = problem;
  const records = recordsWithIds(count, firstIds);
  switch (problem.kind) {
    case 'removed-collection':
      return `${removedCollection(collection, count, firstIds)}, or delete its rows`;
    case 'missing-required':
      return lackingRequired(collection, problem.property, count, firstIds);
    case 'wrong-kind':
      return `${collection}: ${records} hold "${problem.property}" values that are not ${problem.declared}; correct the values or the declaration`;
    case 'undeclared-property':
      return `${collection}: ${records} have "${problem.property}", which ${collection} do not declare; remove the values or declare it`;
  }
}
