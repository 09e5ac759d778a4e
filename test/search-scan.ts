// The answer a word search must give, found the slow way: a scan of every record's fields (README: Lists, `q`), for
// the tests that hold the word index against it.

import type { StoredRecord } from '../src/records/json.ts';
import { searchWords } from '../src/store/search-words.ts';

/** The ids, ascending, of the records whose `fields` hold every one of `words`, by a scan. */
export function idsHoldingEveryWord(
  records: Iterable<StoredRecord>,
  fields: readonly string[],
  words: readonly string[],
): number[] {
  return [...records]
    .filter((record) =>
      words.every((word) =>
        fields.some((field) => typeof record[field] === 'string' && searchWords(record[field]).includes(word)),
      ),
    )
    .map((record) => record.id as number)
    .sort((a, b) => a - b);
}
