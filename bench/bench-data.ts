// The benchmark data: N products (or N gadgets, the declared collection of
// bench/declared-resources.json: the same records plus a sku), written twice — as a
// plainrest data directory (a snapshot of the first N−J records and one journal segment
// holding the last J, so a start reads both), and as one plain JSON array for the reference.
// Names and descriptions hold words with a realistic spread for search (`q`): a name is an
// adjective (each in ~10% of records), a noun (each in ~1%) and a size; a description is
// eight words drawn by Zipf's law from 2,000 (the commonest in most records, the rarest in
// ~0.1%); or, for a catalog that reuses a small vocabulary (`small`), 10 to 14 words of 30.
// Everything is derived from the record's number, so every run has the same data.

import { mkdir, mkdtemp, open, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { StoredRecord } from '../src/records/json.ts';
import { encodeEntry, segmentName } from '../src/store/journal-format.ts';
import { writeSnapshot } from '../src/store/snapshot-file.ts';
import { mulberry32 } from '../test/random.ts';

const CATEGORIES = ['coffee', 'tea', 'equipment', 'accessories', 'books', 'snacks', 'cups', 'gifts'];

/** The first word of every name: each in about one record in ten. */
export const NAME_ADJECTIVES = [
  'smoky',
  'floral',
  'bright',
  'dark',
  'organic',
  'classic',
  'spiced',
  'golden',
  'velvet',
  'wild',
] as const;

/** The second word of every name: each in about one record in a hundred. */
export const NAME_NOUNS = [
  'espresso',
  'roast',
  'blend',
  'beans',
  'grinder',
  'kettle',
  'teapot',
  'infuser',
  'filter',
  'dripper',
  'press',
  'carafe',
  'mug',
  'cup',
  'saucer',
  'tumbler',
  'flask',
  'scale',
  'timer',
  'thermometer',
  'tamper',
  'pitcher',
  'jug',
  'tray',
  'spoon',
  'scoop',
  'canister',
  'jar',
  'tin',
  'pouch',
  'sampler',
  'matcha',
  'sencha',
  'oolong',
  'rooibos',
  'chai',
  'assam',
  'darjeeling',
  'ceylon',
  'jasmine',
  'chamomile',
  'peppermint',
  'hibiscus',
  'ginger',
  'lemongrass',
  'cocoa',
  'biscotti',
  'shortbread',
  'granola',
  'almonds',
  'cashews',
  'pistachios',
  'dates',
  'figs',
  'honey',
  'toffee',
  'caramel',
  'fudge',
  'wafers',
  'crackers',
  'cookbook',
  'guide',
  'journal',
  'atlas',
  'notebook',
  'calendar',
  'poster',
  'apron',
  'towel',
  'coaster',
  'napkin',
  'candle',
  'basket',
  'hamper',
  'voucher',
  'card',
  'ribbon',
  'crate',
  'box',
  'bag',
  'brush',
  'cleaner',
  'descaler',
  'decanter',
  'siphon',
  'percolator',
  'moka',
  'aeropress',
  'chemex',
  'frother',
  'steamer',
  'roaster',
  'sieve',
  'strainer',
  'whisk',
  'bowl',
  'ladle',
  'cozy',
  'warmer',
  'rack',
] as const;

const SIZES = ['50 g', '100 g', '250 g', '500 g', '1 kg'];
const DESCRIPTION_WORDS = 8;
const DESCRIPTION_VOCABULARY = 2000;
const SYLLABLES = [
  'ba',
  'ke',
  'lo',
  'mu',
  'ri',
  'sa',
  'te',
  'vo',
  'ni',
  'du',
  'fa',
  'ge',
  'ho',
  'ju',
  'pi',
  'ra',
  'si',
  'to',
  'wu',
  'ze',
];

/** Word `rank` of the description vocabulary: three syllables, a different word for every rank (7919 is prime to the 8,000 combinations). */
function descriptionWord(rank: number): string {
  const count = SYLLABLES.length;
  const code = ((rank + 1) * 7919) % count ** 3;
  return `${SYLLABLES[code % count]}${SYLLABLES[Math.floor(code / count) % count]}${SYLLABLES[Math.floor(code / count / count) % count]}`;
}

/** Cumulative Zipf weights (1/rank) of the description vocabulary, for sampling by binary search. */
const ZIPF_CUMULATIVE = ((): Float64Array => {
  const cumulative = new Float64Array(DESCRIPTION_VOCABULARY);
  let sum = 0;
  for (let rank = 0; rank < DESCRIPTION_VOCABULARY; rank++) cumulative[rank] = sum += 1 / (rank + 1);
  return cumulative;
})();

function zipfRank(uniform: number): number {
  const target = uniform * (ZIPF_CUMULATIVE[DESCRIPTION_VOCABULARY - 1] as number);
  let low = 0;
  let high = DESCRIPTION_VOCABULARY - 1;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((ZIPF_CUMULATIVE[middle] as number) < target) low = middle + 1;
    else high = middle;
  }
  return low;
}

/** A deterministic generator (test/random.ts) seeded by the record's number: numbers in [0, 1). */
function randomFor(seed: number): () => number {
  return mulberry32(seed * 0x9e3779b1);
}

function pick<T>(items: readonly T[], random: () => number): T {
  return items[Math.floor(random() * items.length)] as T;
}

function capitalised(word: string): string {
  return `${word.charAt(0).toUpperCase()}${word.slice(1)}`;
}

/**
 * The descriptions of a catalog that reuses a small vocabulary, as product catalogs do: about a dozen words each, drawn
 * evenly from these 30, so that every one of them is in a third or more of the records.
 */
const CATALOG_WORDS = [
  'premium',
  'quality',
  'fresh',
  'natural',
  'organic',
  'classic',
  'roasted',
  'blend',
  'smooth',
  'rich',
  'aroma',
  'flavour',
  'notes',
  'with',
  'and',
  'the',
  'for',
  'every',
  'day',
  'perfect',
  'gift',
  'home',
  'kitchen',
  'durable',
  'steel',
  'glass',
  'handmade',
  'light',
  'strong',
  'sweet',
] as const;
/** Words in a small-vocabulary description: 10 to 14. */
const CATALOG_DESCRIPTION_WORDS = [10, 14] as const;

/**
 * How descriptions are made: `spread`, eight words by Zipf's law from 2,000 (most words rare); `small`, 10 to 14 words
 * from a vocabulary of 30 (every word common, about 80 bytes a description).
 */
export type DescriptionVocabulary = 'spread' | 'small';

/** Record `n`'s name and description. */
function wordsFor(n: number, vocabulary: DescriptionVocabulary): { name: string; description: string } {
  const random = randomFor(n);
  const name = `${capitalised(pick(NAME_ADJECTIVES, random))} ${pick(NAME_NOUNS, random)} ${pick(SIZES, random)}`;
  if (vocabulary === 'small') {
    const [fewest, most] = CATALOG_DESCRIPTION_WORDS;
    const length = fewest + Math.floor(random() * (most - fewest + 1));
    const words = Array.from({ length }, () => pick(CATALOG_WORDS, random));
    return { name, description: `${capitalised(words.join(' '))}.` };
  }
  const words = Array.from({ length: DESCRIPTION_WORDS }, () => descriptionWord(zipfRank(random())));
  return { name, description: `${capitalised(words.join(' '))}.` };
}

/**
 * `count` two-word searches, an adjective and a noun each (about 0.1% of the records hold
 * both, 1% the noun), every one different up to 1,000, as `q` values in a query string.
 */
export function searchQueries(count: number): string[] {
  return Array.from({ length: count }, (_, index) => {
    const adjective = NAME_ADJECTIVES[index % NAME_ADJECTIVES.length] as string;
    const noun = NAME_NOUNS[Math.floor(index / NAME_ADJECTIVES.length) % NAME_NOUNS.length] as string;
    return `${adjective}+${noun}`;
  });
}

/** The collections the benchmark fills: the example domain's products, or the declared gadgets. */
export type BenchCollection = 'products' | 'gadgets';

/**
 * Records 1..count in 8 categories, with prices spread over 0.99 … 1000.98 and searchable
 * names; products also have a description (its words as `vocabulary` says), gadgets (whose declaration has none) a sku.
 */
export function benchProducts(
  count: number,
  collection: BenchCollection = 'products',
  vocabulary: DescriptionVocabulary = 'spread',
): StoredRecord[] {
  const now = new Date().toISOString();
  return Array.from({ length: count }, (_, index) => {
    const { name, description } = wordsFor(index + 1, vocabulary);
    return {
      id: index + 1,
      name,
      ...(collection === 'gadgets' ? { sku: `GAD-${index + 1}` } : {}),
      category: CATEGORIES[index % CATEGORIES.length] as string,
      price: Math.round(((index * 7919) % 100000) + 99) / 100,
      ...(collection === 'products' ? { description } : {}),
      created_at: now,
      updated_at: now,
    };
  });
}

/** The categories records are spread over (record n is in category n mod 8). */
export const BENCH_CATEGORIES: readonly string[] = CATEGORIES;

/** How many of `count` records the journal holds rather than the snapshot. */
function journalRecordCount(count: number): number {
  return Math.min(1000, Math.floor(count / 10));
}

/**
 * How the snapshot is laid out: `own`, as the server writes it (snapshot-file.ts: one record a line); `one-line`, as
 * `JSON.stringify` writes it without indentation (a script, a hand edit); `indented`, as `JSON.stringify(…, null, 2)`.
 */
export type SnapshotLayout = 'own' | 'one-line' | 'indented';

/** `records` as a plainrest data directory: products.json (or gadgets.json) plus journal-000000000001.jsonl. */
export async function writeDataDirectory(
  dir: string,
  records: readonly StoredRecord[],
  collection: BenchCollection = 'products',
  layout: SnapshotLayout = 'own',
): Promise<void> {
  const inSnapshot = records.length - journalRecordCount(records.length);
  await mkdir(dir, { recursive: true });
  // The snapshot's id counter stops at the first journal record: replaying a put moves
  // it past that record's id, so after the start it is records.length + 1.
  const path = join(dir, `${collection}.json`);
  if (layout === 'own') await writeSnapshot(path, records.slice(0, inSnapshot), inSnapshot + 1, 0);
  else await writeStringifiedSnapshot(path, records.slice(0, inSnapshot), inSnapshot + 1, layout === 'indented');
  const entries = records
    .slice(inSnapshot)
    .map((record, index) => encodeEntry(index + 1, [{ kind: 'put', collection, record }]));
  if (entries.length > 0) await writeFile(join(dir, segmentName(1)), entries.join(''));
}

/**
 * The text `JSON.stringify({ next_id, journal_seq: 0, records }, null, indented ? 2 : undefined)` gives, written a
 * thousand records at a time: at a million records it would be one string near V8's longest.
 */
async function writeStringifiedSnapshot(
  path: string,
  records: readonly StoredRecord[],
  nextId: number,
  indented: boolean,
): Promise<void> {
  const file = await open(path, 'w');
  try {
    const record = indented
      ? (each: StoredRecord): string => `    ${JSON.stringify(each, null, 2).replaceAll('\n', '\n    ')}`
      : (each: StoredRecord): string => JSON.stringify(each);
    const [opening, between, closing] = indented ? ['[\n', ',\n', '\n  ]'] : ['[', ',', ']'];
    const head = indented
      ? `{\n  "next_id": ${nextId},\n  "journal_seq": 0,\n  "records": `
      : `{"next_id":${nextId},"journal_seq":0,"records":`;
    await file.write(`${head}${records.length === 0 ? '[]' : opening}`);
    for (let from = 0; from < records.length; from += 1000) {
      const text = records
        .slice(from, from + 1000)
        .map(record)
        .join(between);
      await file.write(from === 0 ? text : `${between}${text}`);
    }
    await file.write(`${records.length === 0 ? '' : closing}${indented ? '\n}' : '}'}`);
  } finally {
    await file.close();
  }
}

/** `records` as one plain JSON array, the reference server's input. */
async function writeReferenceFile(path: string, records: readonly StoredRecord[]): Promise<void> {
  await writeFile(path, JSON.stringify(records));
}

/** Both forms of `count` records under `dir`: `dir/data/` for plainrest, `dir/reference.json` for the reference. */
export async function writeBenchFiles(
  dir: string,
  count: number,
  collection: BenchCollection,
): Promise<{ dataDir: string; referenceFile: string }> {
  const records = benchProducts(count, collection);
  const dataDir = join(dir, 'data');
  const referenceFile = join(dir, 'reference.json');
  await writeDataDirectory(dataDir, records, collection);
  await writeReferenceFile(referenceFile, records);
  return { dataDir, referenceFile };
}

/** A fresh temporary data directory holding `count` products (and nothing else yet). */
export async function dataDirWithProducts(count: number): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'plainrest-bench-'));
  await writeDataDirectory(dir, benchProducts(count));
  return dir;
}
