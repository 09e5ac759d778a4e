// What plainrest's core lends this package when it opens a store (store/open-database.ts): its errors and a few of
// its functions, so that the package never imports the core at run time.

import type { Change, IdKind, JsonValue, RecordReader, ResourceTable, StoredRecord } from 'plainrest';

/** What the core lends the store (plainrest is not a runtime dependency of this package). */
export interface CoreKit {
  /** The core's 503 with Retry-After. */
  unavailable(detail: string): Error;
  /** The distinct search words of a record's `fields` (plainrest's store/search-words.ts), for the words column. */
  recordWords(record: StoredRecord, fields: readonly string[]): string[];
  /**
   * A commit's changes with their event facts (plainrest's store/describe-changes.ts), `store` reading the data before
   * the commit.
   */
  describeChanges(table: ResourceTable, changes: readonly Change[], store: RecordReader): readonly Change[];
  /** Whether two JSON values are equal, nested values included (plainrest's records/json.ts). */
  jsonEqual(a: JsonValue, b: JsonValue): boolean;
  /**
   * Whether `value` may be an id of a collection of `kind` (plainrest's records/record-id.ts): a read of any other
   * finds nothing, as in memory, without asking the database (a uuid column would refuse the text).
   */
  isIdOfKind(value: unknown, kind: IdKind): boolean;
}
