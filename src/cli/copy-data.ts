// `plainrest copy --from <store> --to <store>` (docs/deploying.md): every record, with its id and password hash, and
// the idempotency keys and next ids, from a data directory or a PostgreSQL database into an empty one of either kind,
// all or nothing, so that no id the source gave out is given out again; `plainrest import` writes through writeInto,
// `plainrest export` reads through readEveryRecord.

import { mkdir, stat } from 'node:fs/promises';
import { resolve } from 'node:path';
import { counted, withoutPassword } from './banner.ts';
import type { ServerOptions } from '../config/server-options.ts';
import { isDatabaseUrl } from '../config/config.ts';
import type { ResourceTable } from '../resources/definition.ts';
import { recordedResources } from '../resources/definition.ts';
import { resolveResources } from '../declarations/resolve-resources.ts';
import type { CollectionState } from '../store/collection-state.ts';
import { readDataDirectory, StartupError } from '../store/data-directory.ts';
import type { DataLock } from '../store/data-lock.ts';
import { acquireLock } from '../store/data-lock.ts';
import { declarationFitProblems } from '../store/declaration-fit.ts';
import { JournalPersistence } from '../store/journal-persistence.ts';
import { JournalWriter } from '../store/journal-writer.ts';
import { MemoryStore } from '../store/memory-store.ts';
import type { CollectionCopy } from '../store/open-database.ts';
import { databaseProblem, readAllFromDatabase, writeAllToDatabase } from '../store/open-database.ts';
import type { Change, StoredCollection } from '../store/store.ts';
import { IDEMPOTENCY_COLLECTION } from '../store/store.ts';
import { WEBHOOKS } from '../declarations/built-in-webhooks.ts';
import { copiedSubscription } from '../webhooks/subscription.ts';

export class CopyError extends Error {}

type Place =
  { readonly kind: 'directory'; readonly path: string } | { readonly kind: 'database'; readonly url: string };

/**
 * Copies every record from `from` to `to` (each a data directory or a postgres:// URL); resolves with the line that
 * says what was copied.
 */
export async function copyData(
  from: string,
  to: string,
  options: Pick<ServerOptions, 'resources' | 'hooks'>,
): Promise<string> {
  const source = placeOf(from);
  const target = placeOf(to);
  if (samePlace(source, target))
    throw new CopyError(`--from and --to both name ${describe(source)}; name another target`);
  const resources = await resolveResources(options.resources, options.hooks);
  const collections = [...resources.resources.map((resource) => resource.collection), IDEMPOTENCY_COLLECTION];

  const sourceLock = source.kind === 'directory' ? await lockSource(source.path) : undefined;
  try {
    const read =
      source.kind === 'directory'
        ? await readDirectory(source.path, resources, collections)
        : await onDatabase(source, () => readAllFromDatabase(source.url, resources));
    const records = withSubscriptionsCopied(read);
    if (target.kind === 'directory') await writeDirectory(target.path, resources, collections, records);
    else await onDatabase(target, () => writeDatabase(target.url, resources, records));
    return summary(resources, records, source, target);
  } finally {
    await sourceLock?.release();
  }
}

/** The records with each webhook subscription as the target takes it (webhooks/subscription.ts: copiedSubscription). */
function withSubscriptionsCopied(
  records: ReadonlyMap<StoredCollection, CollectionCopy>,
): ReadonlyMap<StoredCollection, CollectionCopy> {
  const subscriptions = records.get(WEBHOOKS);
  if (subscriptions === undefined || subscriptions.records.length === 0) return records;
  const copied = { ...subscriptions, records: subscriptions.records.map(copiedSubscription) };
  return new Map([...records, [WEBHOOKS, copied]]);
}

/**
 * Writes `records` into `to`, a new or empty data directory or database (`plainrest import`); resolves with how the
 * target is named in a summary line. A collection `records` lacks starts empty.
 */
export async function writeInto(
  to: string,
  resources: ResourceTable,
  records: ReadonlyMap<StoredCollection, CollectionCopy>,
): Promise<string> {
  const target = placeOf(to);
  const collections = [...resources.resources.map((resource) => resource.collection), IDEMPOTENCY_COLLECTION];
  const all = new Map(
    collections.map((collection) => [collection, records.get(collection) ?? { records: [], nextId: 1 }]),
  );
  if (target.kind === 'directory') await writeDirectory(target.path, resources, collections, all);
  else await onDatabase(target, () => writeDatabase(target.url, resources, all));
  return describe(target);
}

/**
 * Every record of `from`, a data directory (read under its lock, so a running server is refused) or a database, by
 * collection (`plainrest export`).
 */
export async function readEveryRecord(
  from: string,
  resources: ResourceTable,
): Promise<ReadonlyMap<StoredCollection, CollectionCopy>> {
  const source = placeOf(from);
  if (source.kind === 'database') return onDatabase(source, () => readAllFromDatabase(source.url, resources));
  const collections = resources.resources.map((resource) => resource.collection);
  const lock = await lockSource(source.path);
  try {
    return await readDirectory(source.path, resources, collections);
  } finally {
    await lock.release();
  }
}

function placeOf(text: string): Place {
  return isDatabaseUrl(text) ? { kind: 'database', url: text } : { kind: 'directory', path: text };
}

function samePlace(a: Place, b: Place): boolean {
  if (a.kind === 'directory' && b.kind === 'directory') return resolve(a.path) === resolve(b.path);
  return a.kind === 'database' && b.kind === 'database' && a.url === b.url;
}

/** A place as it may be printed: a database URL never shows its password. */
function describe(place: Place): string {
  return place.kind === 'directory' ? `the data directory ${place.path}` : `the database ${withoutPassword(place.url)}`;
}

/** Runs work on a database; its being unreachable, or an error it reports, becomes one line naming it. */
async function onDatabase<T>(place: Place, work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (error) {
    const problem = databaseProblem(error);
    if (problem === undefined) throw error;
    throw new CopyError(`${describe(place)} ${problem}`);
  }
}

/**
 * The source's lock, held while it is read (the source is never written): a running server is refused (acquireLock
 * says which process; its later writes would be missing from the copy), and none starts meanwhile.
 */
async function lockSource(path: string): Promise<DataLock> {
  const found = await stat(path).catch(() => undefined);
  if (found === undefined || !found.isDirectory())
    throw new CopyError(`the data directory ${path} does not exist; name the directory a server ran on`);
  return acquireLock(path);
}

/**
 * Every record of a data directory, its snapshots and journal replayed as a start would, refusing data the declaration
 * no longer fits in a start's words.
 */
async function readDirectory(
  path: string,
  resources: ResourceTable,
  collections: readonly StoredCollection[],
): Promise<Map<StoredCollection, CollectionCopy>> {
  const contents = await readDataDirectory(path, resources);
  const misfits = declarationFitProblems(resources, contents.collections);
  if (misfits.length > 0)
    throw new StartupError(
      `the data in ${path} no longer fits the declaration: ${misfits.join('; ')}; nothing was changed`,
    );
  const copied = new Map<StoredCollection, CollectionCopy>();
  for (const collection of collections) {
    const state = contents.collections.get(collection);
    copied.set(collection, {
      records: state === undefined ? [] : [...state.records.values()],
      nextId: state?.nextId ?? 1,
    });
  }
  return copied;
}

/**
 * Writes a new or empty data directory (no snapshot, no journal entry): under its lock, every record in one journal
 * entry (all or nothing), then each collection's next id, then the snapshots and an
 * empty journal, as a graceful stop leaves a directory. Cut short before the snapshots, the directory has only the
 * next ids a replay gives (max id + 1): a copy that printed no summary line is redone into a new directory.
 */
async function writeDirectory(
  path: string,
  resources: ResourceTable,
  collections: readonly StoredCollection[],
  records: ReadonlyMap<StoredCollection, CollectionCopy>,
): Promise<void> {
  await mkdir(path, { recursive: true, mode: 0o700 }); // never world-writable, whatever the umask
  const lock = await acquireLock(path);
  try {
    const contents = await readDataDirectory(path, resources).catch((error: unknown) => {
      // A snapshot or journal that does not even read is data all the same.
      if (error instanceof StartupError) return undefined;
      throw error;
    });
    if (contents === undefined || !contents.isEmpty) throw new CopyError(notEmpty({ kind: 'directory', path }));
    const store = new MemoryStore(new Map());
    const journal = await JournalWriter.open(path, contents.lastSeq, contents.segments);
    const persistence = new JournalPersistence({
      dataDir: path,
      journal,
      stateOf: (collection) => store.collectionState(collection),
      collections,
      lock,
      compactAfterBytes: Number.POSITIVE_INFINITY, // one compaction, at the end
      keptFrom: () => Number.POSITIVE_INFINITY, // a copy starts with no change history
      logger: {
        info: () => {},
        warn: (message) => console.warn(`warning: ${message}`),
        error: (message) => console.error(`error: ${message}`),
      },
    });
    store.persistWith(persistence);
    const changes: Change[] = [];
    for (const [collection, copy] of records)
      for (const record of copy.records) changes.push({ kind: 'put', collection, record });
    if (changes.length > 0) await store.commit(changes);
    for (const [collection, copy] of records) raiseNextId(store.collectionState(collection), copy.nextId);
    // The snapshots, with the next ids raised (in no journal entry), the journal removed; then the lock released.
    await persistence.compact();
    await persistence.close();
  } catch (error) {
    await lock.release();
    throw error;
  }
}

/** Never lower: a put already moved the counter past its id. */
function raiseNextId(state: CollectionState, nextId: number): void {
  state.nextId = Math.max(state.nextId, nextId);
}

async function writeDatabase(
  url: string,
  resources: ResourceTable,
  records: ReadonlyMap<StoredCollection, CollectionCopy>,
): Promise<void> {
  const written = await writeAllToDatabase(url, resources, records);
  if (written !== 'written') throw new CopyError(notEmpty({ kind: 'database', url }));
}

function notEmpty(target: Place): string {
  return `${describe(target)} already holds data; nothing was changed: name a new data directory or an empty database`;
}

/**
 * `copied 12 users, 30 orders, 25 products (and 2 idempotency keys) from <source> to <target>`; webhooks and their
 * deliveries, when there are any, beside the idempotency keys: `(and 1 webhook, 12 deliveries, 2 idempotency keys)`.
 */
function summary(
  resources: ResourceTable,
  records: ReadonlyMap<StoredCollection, CollectionCopy>,
  source: Place,
  target: Place,
): string {
  const declared = recordedResources(resources).map((resource) =>
    counted(records.get(resource.collection)?.records.length ?? 0, resource.collection),
  );
  const own = resources.resources
    .filter((resource) => resource.unrecorded === true && (records.get(resource.collection)?.records.length ?? 0) > 0)
    .map((resource) => counted(records.get(resource.collection)?.records.length ?? 0, resource.collection));
  own.push(counted(records.get(IDEMPOTENCY_COLLECTION)?.records.length ?? 0, 'idempotency keys'));
  return `copied ${declared.join(', ')} (and ${own.join(', ')}) from ${describe(source)} to ${describe(target)}`;
}
