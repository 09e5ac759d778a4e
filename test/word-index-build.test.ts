// The word index's build (src/store/word-index.ts) against a scan, on random catalogs: words numbered without making
// strings (word-numbers.ts) are searchWords's words, the numbers kept between the passes (word-sequence.ts) come back
// in order across blocks and widths, and an index built from small, large or all-unique vocabularies, with changes
// made while it builds, finds exactly what a scan of every record finds.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { StoredRecord } from '../src/records/json.ts';
import { searchWords } from '../src/store/search-words.ts';
import { WordIndex } from '../src/store/word-index.ts';
import { WordNumbers } from '../src/store/word-numbers.ts';
import { WordSequence } from '../src/store/word-sequence.ts';
import { mulberry32 } from './random.ts';
import { idsHoldingEveryWord } from './search-scan.ts';

const TIMESTAMP = '2026-01-01T00:00:00.000Z';
const FIELDS = ['name', 'description'];

/** Characters a random text is made of: letters of both cases, digits, separators, accents, other scripts. */
const CHARACTERS = 'aAbBzZ09 -,.\n_\u00e9\u00c9\u00df\u0301\u4e2d\u{1f375}\u00a0\u0130';

function randomText(random: () => number, length: number): string {
  const characters = [...CHARACTERS];
  return Array.from({ length }, () => characters[Math.floor(random() * characters.length)] as string).join('');
}

/** What a search must find: the ids whose fields hold every word, by a scan. */
function scanned(records: Iterable<StoredRecord>, words: readonly string[]): number[] {
  return idsHoldingEveryWord(records, FIELDS, words);
}

describe('words as numbers', () => {
  test("numbersIn gives searchWords's words, in order, one number per distinct word, on random text", () => {
    const random = mulberry32(41);
    const numbers = new WordNumbers();
    const numberOf = new Map<string, number>();
    for (let round = 0; round < 20_000; round++) {
      const text = round % 3 === 0 ? randomText(random, Math.floor(random() * 40)) : asciiText(random);
      const read = numbers.numbersIn(text);
      const given = Array.from(numbers.read.subarray(0, read));
      assert.deepEqual(
        given.map((number) => numbers.word(number)),
        searchWords(text),
        JSON.stringify(text),
      );
      for (const number of given) {
        const word = numbers.word(number);
        assert.equal(numberOf.get(word) ?? number, number, `${word} keeps its number`);
        numberOf.set(word, number);
      }
    }
    assert.ok(numbers.count >= numberOf.size, 'every word has a number');
    assert.ok(numberOf.size > 2000, 'enough words to grow the table several times');
  });

  /** ASCII text of words from a vocabulary of 5,000 (mixed case), with digits and separators between. */
  function asciiText(random: () => number): string {
    return Array.from({ length: Math.floor(random() * 12) }, () => {
      const word = `w${Math.floor(random() * random() * 5000).toString(36)}`;
      return random() < 0.3 ? word.toUpperCase() : word;
    }).join(random() < 0.5 ? ' ' : ', ');
  }

  test('a long text of one word, or of many, reads to its end', () => {
    const numbers = new WordNumbers();
    const long = 'Kettle '.repeat(5000);
    assert.equal(numbers.numbersIn(long), 5000);
    assert.equal(numbers.word(numbers.read[4999] as number), 'kettle');
    const oneWord = 'x'.repeat(100_000);
    assert.equal(numbers.numbersIn(oneWord), 1);
    assert.equal(numbers.word(numbers.read[0] as number), oneWord);
    assert.equal(numbers.numbersIn(''), 0);
    assert.equal(numbers.numbersIn(' ,.- '), 0);
  });
});

describe('the numbers kept between the passes', () => {
  test('come back in the order pushed, across blocks, and after a number past 65,535 widens them', () => {
    const block = 1000;
    for (const widenAt of [Infinity, 0, 5, block - 1, block, block + 3, 2 * block + 999]) {
      const sequence = new WordSequence(block);
      const count = block * 5 + 17;
      const valueAt = (index: number): number => (index >= widenAt ? (index * 7919) % 2 ** 32 : (index * 31) % 65_536);
      for (let index = 0; index < count; index++) sequence.push(valueAt(index));
      for (let index = 0; index < count; index++) {
        const value = sequence.shift();
        if (value !== valueAt(index))
          assert.fail(`widened at ${widenAt}: number ${index} is ${value}, not ${valueAt(index)}`);
      }
    }
    // The default sizes: a small first block (65,536 numbers), cut short where a number past 65,535 widens the rest
    // (at the 21,846th here), and full blocks after it.
    const full = new WordSequence();
    for (let index = 0; index < 100_000; index++) full.push(index * 3);
    for (let index = 0; index < 100_000; index++) {
      const value = full.shift();
      if (value !== index * 3) assert.fail(`in the default blocks: number ${index} is ${value}, not ${index * 3}`);
    }
    const short = new WordSequence();
    for (let index = 0; index < 70_000; index++) short.push(index % 65_536);
    for (let index = 0; index < 70_000; index++) {
      const value = short.shift();
      if (value !== index % 65_536)
        assert.fail(`past the first block: number ${index} is ${value}, not ${index % 65_536}`);
    }
  });
});

describe('the word index, built, against a scan', () => {
  /** Records whose two fields draw words from `vocabulary` (capitalised at times, accented at times). */
  function catalog(random: () => number, count: number, vocabulary: readonly string[]): Map<number, StoredRecord> {
    const records = new Map<number, StoredRecord>();
    let id = 0;
    for (let made = 0; made < count; made++) {
      id += 1 + Math.floor(random() * random() * 5); // gaps between ids
      records.set(id, recordOf(random, id, vocabulary));
    }
    return records;
  }

  function recordOf(random: () => number, id: number, vocabulary: readonly string[]): StoredRecord {
    const words = (length: number): string =>
      Array.from({ length }, () => {
        const word = vocabulary[Math.floor(random() * vocabulary.length)] as string;
        return random() < 0.2 ? `${word.charAt(0).toUpperCase()}${word.slice(1)}` : word;
      }).join(random() < 0.8 ? ' ' : '; ');
    return {
      id,
      name: words(1 + Math.floor(random() * 3)),
      ...(random() < 0.9 ? { description: words(Math.floor(random() * 14)) } : { description: 42 }),
      created_at: TIMESTAMP,
      updated_at: TIMESTAMP,
    } as StoredRecord;
  }

  /** Queries of one to three words from the vocabulary, and one word no record holds. */
  function queries(random: () => number, vocabulary: readonly string[]): string[][] {
    const word = (): string => searchWords(vocabulary[Math.floor(random() * vocabulary.length)] as string)[0] ?? 'x';
    return [
      ...Array.from({ length: 40 }, () => Array.from({ length: 1 + Math.floor(random() * 3) }, word)),
      ['absent'],
      [word(), 'absent'],
    ];
  }

  const vocabularies: [string, string[]][] = [
    ['3 words', ['tea', 'mug', 'kettle']],
    [
      '30 words, some accented',
      Array.from({ length: 30 }, (_, index) => (index % 7 === 0 ? `café${index}` : `w${index}`)),
    ],
    ['3,000 words', Array.from({ length: 3000 }, (_, index) => `word${index}`)],
    [
      'a few words most records hold, and many rare ones',
      Array.from({ length: 4000 }, (_, index) => (index < 3000 ? `common${index % 6}` : `rare${index}`)),
    ],
  ];

  for (const [name, vocabulary] of vocabularies) {
    test(`${name}: every query finds what a scan finds, before and after changes made while it builds`, async () => {
      const random = mulberry32(vocabulary.length);
      const records = catalog(random, 4000, vocabulary);
      const index = new WordIndex(FIELDS, [...records.values()], 0);
      assert.ok(index.building instanceof Promise, 'built in slices');
      const largest = Math.max(...records.keys());
      for (let round = 0; round < 200; round++) {
        const id = 1 + Math.floor(random() * (largest + 50));
        const previous = records.get(id);
        const next = random() < 0.3 ? undefined : recordOf(random, id, vocabulary);
        index.update(previous, next);
        if (next === undefined) records.delete(id);
        else records.set(id, next);
      }
      await index.building;
      for (const words of queries(random, vocabulary))
        assert.deepEqual(index.idsHolding(words), scanned(records.values(), words), words.join(' '));
    });
  }

  test('70,000 records each with a word of its own (numbers past 65,535), and words most records hold', async () => {
    const records = new Map<number, StoredRecord>();
    for (let id = 1; id <= 70_000; id++)
      records.set(id, {
        id,
        name: `SKU${id} ${id % 3 === 0 ? 'steel' : 'glass'} kettle`,
        description: `sku${id}`,
        created_at: TIMESTAMP,
        updated_at: TIMESTAMP,
      });
    const index = new WordIndex(FIELDS, [...records.values()]);
    await index.building;
    for (const id of [1, 65_535, 65_536, 65_537, 70_000]) assert.deepEqual(index.idsHolding([`sku${id}`]), [id]);
    assert.deepEqual(index.idsHolding(['sku70001']), []);
    assert.deepEqual(index.idsHolding(['kettle', 'steel', 'sku69999']), [69_999]);
    assert.deepEqual(index.idsHolding(['steel']), scanned(records.values(), ['steel']));
    assert.equal(index.idsHolding(['kettle', 'glass']).length, 70_000 - Math.floor(70_000 / 3));
  });
});
