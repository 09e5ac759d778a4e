// The collections of a json-server file (README: Moving in from json-server): each top-level list, named in
// snake_case, with its records, their places in the list and their ids (record-ids.ts); a top-level object is a
// singleton (json-server's singular resource, `profile`), a single value is left out, saying so, and a name
// plainrest cannot serve, or keeps for itself, is a problem.

import { reservedNameProblem } from '../declarations/reserved-names.ts';
import type { JsonObject, JsonValue } from '../records/json.ts';
import { isJsonObject } from '../records/json.ts';
import { NAME } from '../resources/names.ts';
import type { Findings } from './infer-schema.ts';
import { preview } from './infer-schema.ts';
import type { CollectionIds } from './record-ids.ts';
import { collectionIds, rawIdOf } from './record-ids.ts';
import { snakeCase } from './names.ts';

/** One collection as the file has it, with its plainrest name. */
export interface Source {
  readonly key: string;
  readonly name: string;
  readonly records: readonly JsonObject[];
  /** Each record's place in the file's list, from 1 (an item that is no object is not a record). */
  readonly positions: readonly number[];
  readonly ids: CollectionIds;
  /** A top-level object: served as one record at /v1/<name>, under the fixed id a singleton is kept by. */
  readonly singleton?: true;
}

/** A singleton's one record, as every singleton is kept (README: Your own resources). */
const SINGLETON_IDS: CollectionIds = { kind: 'integer', ids: [1], newIds: new Map(), renumbered: new Map(), nextId: 2 };

/** The top-level lists, named as plainrest names them; anything else is left out, saying so. */
export function collectionsOf(data: unknown, findings: Findings): Source[] {
  if (!isJsonObject(data as JsonValue)) {
    findings.problems.push('the file holds no object of collections ({"posts": [...], ...}), as json-server reads');
    return [];
  }
  const sources: Source[] = [];
  const byName = new Map<string, string>();
  for (const [key, value] of Object.entries(data as JsonObject)) {
    const singleton = isJsonObject(value);
    if (!Array.isArray(value) && !singleton) {
      findings.notes.push(`${key}: left out: a single value, not a list of records nor an object`);
      continue;
    }
    const name = snakeCase(key);
    if (!NAME.test(name)) {
      findings.problems.push(
        `${key}: not a collection name plainrest can serve (lower-case letters, digits and _, starting with a ` +
          'letter); rename it in the file',
      );
      continue;
    }
    // Refused, not renamed: a client of the file's server asks for this name, and a new one would break it unseen.
    const reserved = reservedNameProblem(name);
    if (reserved !== undefined) {
      findings.problems.push(`${key}: ${reserved}; rename the collection in the file`);
      continue;
    }
    const earlier = byName.get(name);
    if (earlier !== undefined) {
      findings.problems.push(`${earlier} and ${key}: both would be the collection ${name}; rename one`);
      continue;
    }
    byName.set(name, key);
    if (name !== key) findings.notes.push(`${key}: served as ${name}`);
    if (singleton) {
      findings.notes.push(`${key}: a single object (json-server's singular resource): one record at /v1/${name}`);
      if (rawIdOf(value) !== undefined) findings.notes.push(`${key}.id: left out: a singleton's path names it alone`);
      sources.push({ key, name, records: [value], positions: [1], ids: SINGLETON_IDS, singleton: true });
      continue;
    }
    const records: JsonObject[] = [];
    const positions: number[] = [];
    (value as readonly JsonValue[]).forEach((record, index) => {
      if (!isJsonObject(record)) {
        findings.problems.push(`${key}, record ${index + 1}: ${preview(record)} is not an object; remove it`);
        return;
      }
      records.push(record);
      positions.push(index + 1);
    });
    // Users' ids are the server's numbers (README: Your own resources, ids): any other is renumbered.
    const ids = collectionIds(key, records, positions, findings, name !== 'users');
    sources.push({ key, name, records, positions, ids });
    const numberAsText = (record: JsonObject): boolean => {
      const id = rawIdOf(record);
      return typeof id === 'string' && /^[1-9][0-9]*$/.test(id);
    };
    if (ids.kind !== 'integer')
      findings.notes.push(`${key}: ids kept as the file has them, as text ("x-id": "${ids.kind}")`);
    else if (records.some(numberAsText))
      findings.notes.push(`${key}: ids written as text ("1", as json-server 1.x writes them) are served as numbers`);
  }
  return sources;
}

/** `comments, record 3 (id "c7")`; `profile` for a singleton. */
export function recordName(source: Source, index: number): string {
  if (source.singleton === true) return source.key;
  const id = rawIdOf(source.records[index] ?? {});
  return `${source.key}, record ${source.positions[index]}${id === undefined ? '' : ` (id ${preview(id)})`}`;
}

/** The first of the file's names for a property: `postId` for `post_id`. */
export function originalKey(source: Source, name: string): string {
  for (const record of source.records) for (const key of Object.keys(record)) if (snakeCase(key) === name) return key;
  return name;
}
