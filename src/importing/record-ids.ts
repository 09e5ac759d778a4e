// Ids of a json-server collection as plainrest's (README: Moving in from json-server): whole numbers from 1 (or strings
// of them, as json-server 1.x writes them) make an integer collection, other ids a new number; an id holding more
// than digits makes every id text, "x-id": "uuid" when all are uuids, else "string", one a path cannot hold a uuid. Two
// records with one id, an id past 2^53 − 1 (RFC 8259 §6), and ids leaving no next id a start accepts are problems.

import { randomUUID } from 'node:crypto';
import type { JsonObject, JsonValue } from '../records/json.ts';
import type { IdKind, RecordId } from '../records/record-id.ts';
import { isStringId, isUuid } from '../records/record-id.ts';
import { MAX_NEXT_ID } from '../store/collection-state.ts';
import type { Findings } from './infer-schema.ts';
import { preview } from './infer-schema.ts';
import { snakeCase } from './names.ts';

export interface CollectionIds {
  /** The collection's `x-id`: integer unless an id holds more than digits. */
  readonly kind: IdKind;
  /** Each record's new id, in the file's order. */
  readonly ids: readonly RecordId[];
  /** A referencing value's text (`"3f2a"`, `"7"`, `7`: String of it) → the id of the record it names. */
  readonly newIds: ReadonlyMap<string, RecordId>;
  /** Ids that changed: each as the file had it (`3f2a`, or `(record 4)` for none) → its new id. */
  readonly renumbered: ReadonlyMap<string, RecordId>;
  /** The id a created record gets next (integer collections). */
  readonly nextId: number;
}

const WHOLE = /^[1-9][0-9]{0,15}$/;

/** A record's id as the file gives it: `id`, or `Id`/`ID` (any name that is `id` in snake_case). */
export function rawIdOf(record: JsonObject): JsonValue | undefined {
  if (Object.hasOwn(record, 'id')) return record['id'];
  const key = Object.keys(record).find((name) => snakeCase(name) === 'id');
  return key === undefined ? undefined : record[key];
}

/** The ids of `records`, whose places in the file's list are `positions` (from 1). */
export function collectionIds(
  collection: string,
  records: readonly JsonObject[],
  positions: readonly number[],
  findings: Findings,
  textAllowed = true,
): CollectionIds {
  const raws = records.map(rawIdOf);
  if (textAllowed && raws.some((raw) => typeof raw === 'string' && /[^0-9]/.test(raw)))
    return textIds(collection, raws, positions, findings);
  const kept = raws.map(keptId);
  let largest = 0;
  for (const id of kept) if (id !== undefined && id > largest) largest = id;
  let next = largest + 1;
  const ids: number[] = [];
  const newIds = new Map<string, number>();
  const renumbered = new Map<string, number>();
  const firstWith = new Map<string, number>();
  let tooLarge = false;
  /** How many records get a new number. */
  let numbered = 0;
  raws.forEach((raw, index) => {
    if (isPastLargest(raw)) {
      tooLarge = true;
      findings.problems.push(
        `${collection}, record ${positions[index]}: the id ${preview(raw ?? null)} is past ${MAX_NEXT_ID} ` +
          '(2^53 − 1), the largest whole number JSON readers keep exactly (RFC 8259 §6); give it a smaller one',
      );
    }
    const id = kept[index] ?? next++;
    if (kept[index] === undefined) numbered++;
    ids.push(id);
    // Only a string or a number can be an id another record names.
    const text = typeof raw === 'string' || typeof raw === 'number' ? String(raw) : undefined;
    if (kept[index] === undefined)
      renumbered.set(raw === undefined ? `(record ${positions[index]})` : (text ?? JSON.stringify(raw)), id);
    if (text === undefined) return;
    const earlier = firstWith.get(text) ?? firstWith.get(String(id));
    if (earlier !== undefined) {
      findings.problems.push(sameId(collection, positions[earlier], positions[index], raw));
      return;
    }
    firstWith.set(text, index);
    firstWith.set(String(id), index);
    newIds.set(text, id);
  });
  if (next > MAX_NEXT_ID && !tooLarge) {
    // Counted exactly: past 2^53 an increment of a number is lost.
    const last = BigInt(largest) + BigInt(numbered);
    const reaching =
      numbered === 0
        ? `its largest id, ${largest},`
        : `numbering ${numbered} record(s) after its largest kept id, ${largest}, up to ${last}`;
    findings.problems.push(
      `${collection}: ${reaching} leaves no next id: a record's id may be at most ${MAX_NEXT_ID - 1}, so that the ` +
        `next one stays within ${MAX_NEXT_ID} (2^53 − 1); give the records smaller ids`,
    );
  }
  return { kind: 'integer', ids, newIds, renumbered, nextId: next };
}

/** Ids kept as text (a number as its digits); one that cannot be an id in a path, or none, gets a new uuid. */
function textIds(
  collection: string,
  raws: readonly (JsonValue | undefined)[],
  positions: readonly number[],
  findings: Findings,
): CollectionIds {
  const texts = raws.map((raw) => (typeof raw === 'string' || typeof raw === 'number' ? String(raw) : undefined));
  const kept = texts.map((text) => (isStringId(text) ? text : undefined));
  const kind = kept.every((text) => text === undefined || isUuid(text)) ? 'uuid' : 'string';
  const ids: string[] = [];
  const newIds = new Map<string, RecordId>();
  const renumbered = new Map<string, RecordId>();
  const firstWith = new Map<string, number>();
  raws.forEach((raw, index) => {
    const text = texts[index];
    const id = kept[index] ?? randomUUID();
    ids.push(id);
    if (kept[index] === undefined)
      renumbered.set(raw === undefined ? `(record ${positions[index]})` : (text ?? JSON.stringify(raw)), id);
    if (text === undefined) return;
    const earlier = firstWith.get(text);
    if (earlier !== undefined) {
      findings.problems.push(sameId(collection, positions[earlier], positions[index], raw));
      return;
    }
    firstWith.set(text, index);
    newIds.set(text, id);
  });
  return { kind, ids, newIds, renumbered, nextId: 1 };
}

/** An id meant as a whole number (a number, or a string of digits) too large to be kept exactly. */
function isPastLargest(raw: JsonValue | undefined): boolean {
  if (typeof raw === 'number') return Number.isInteger(raw) && raw > MAX_NEXT_ID;
  return typeof raw === 'string' && /^[1-9][0-9]*$/.test(raw) && Number(raw) > MAX_NEXT_ID;
}

/** The id kept as it is: a whole number from 1, or a string of one. */
function keptId(raw: JsonValue | undefined): number | undefined {
  if (typeof raw === 'number') return Number.isSafeInteger(raw) && raw >= 1 ? raw : undefined;
  if (typeof raw === 'string' && WHOLE.test(raw) && Number.isSafeInteger(Number(raw))) return Number(raw);
  return undefined;
}

/** The problem of two records, at places `first` and `second` of the file's list, with the id `raw`. */
function sameId(
  collection: string,
  first: number | undefined,
  second: number | undefined,
  raw: JsonValue | undefined,
): string {
  return `${collection}, records ${first} and ${second}: both have the id ${preview(raw ?? null)}; give each its own`;
}
