// The words a search compares (CONTRACT §13: `q` finds records holding every word, ignoring
// case and accents): text decomposed (Unicode NFD), its combining marks dropped, lower-cased,
// split on anything that is not a letter or a digit. "Café crème" has the words cafe, creme.
// Both stores use these words: the memory store's word index and PostgreSQL's column of them.

import type { StoredRecord } from './json.js';

export function searchWords(text: string): string[] {
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0);
}

/** Every distinct word of a record's searchable `fields`. */
export function recordWords(record: StoredRecord, fields: readonly string[]): string[] {
  const words = new Set<string>();
  for (const field of fields) {
    const value = record[field];
    if (typeof value === 'string') for (const word of searchWords(value)) words.add(word);
  }
  return [...words];
}
