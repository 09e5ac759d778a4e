// The collections json-server's dialect serves (docs/json-server.md: Serving json-server's dialect), under the file's
// names (declarations/file-names.ts), and json-server's relations between them, by name as it finds them: `postId`
// names a post (a nested route, `_embed`, `_expand`, its cascade). Records go out in the file's names, without the
// timestamps a file did not have; bodies come in translated to the declared names.

import { API_KEYS } from '../declarations/built-in-keys.ts';
import type { DeclaredNames, FileNames } from '../declarations/file-names.ts';
import {
  declaredNamesOf,
  FILE_NAMES_MEMBER,
  fileNamesOf,
  toDeclaredNames,
  toFileNames,
} from '../declarations/file-names.ts';
import type { JsonObject, JsonValue } from '../records/json.ts';
import { isJsonObject } from '../records/json.ts';
import type { ResourceDefinition, ResourceTable } from '../resources/definition.ts';
import { isPlural, singularOf } from '../resources/singular-nouns.ts';

/** One collection as the dialect serves it. */
export interface DialectCollection {
  readonly definition: ResourceDefinition;
  /** Its name in the file: the path it is served at (`/blog-posts`). */
  readonly name: string;
  readonly names: FileNames;
  readonly declared: DeclaredNames;
  /** The record's own timestamps the file had (`createdAt`): the others are plainrest's and not shown here. */
  readonly timestamps: readonly string[];
  /** Fields holding integer ids the file wrote as text (`"1"`, json-server 1.x's): its id, references to such ids. */
  readonly asText: ReadonlySet<string>;
  /** Fields holding integer ids, which a body may give as text (`"1"`): references to integer collections. */
  readonly integerIds: ReadonlySet<string>;
}

/**
 * The collections of `table` the dialect serves: top-level ones and singletons; API keys and webhooks (the collections
 * out of the change feed) are plainrest's own.
 */
export class DialectCollections {
  readonly #byName = new Map<string, DialectCollection>();
  readonly #byDefinition = new Map<ResourceDefinition, DialectCollection>();

  constructor(table: ResourceTable) {
    const namesOf = (definition: ResourceDefinition): FileNames =>
      fileNamesOf(definition.collection, definition.declared[FILE_NAMES_MEMBER]);
    for (const definition of table.resources) {
      if (definition.parent !== undefined || definition.collection === API_KEYS || definition.unrecorded === true)
        continue;
      const names = namesOf(definition);
      const timestamps = ['created_at', 'updated_at'].filter((field) => names.properties.has(field));
      const asText = new Set(names.idsAsText ? ['id'] : []);
      const integerIds = new Set<string>();
      for (const rule of definition.fields) {
        const target = table.get(rule.references ?? rule.items?.references ?? '');
        if (target === undefined || target.idKind !== 'integer') continue;
        integerIds.add(rule.name);
        if (namesOf(target).idsAsText) asText.add(rule.name);
      }
      const declared = declaredNamesOf(names);
      const collection = { definition, name: names.collection, names, declared, timestamps, asText, integerIds };
      this.#byName.set(collection.name, collection);
      this.#byDefinition.set(definition, collection);
    }
  }

  /** The collection the file calls `name`. */
  named(name: string): DialectCollection | undefined {
    return this.#byName.get(name);
  }

  of(definition: ResourceDefinition): DialectCollection | undefined {
    return this.#byDefinition.get(definition);
  }

  all(): IterableIterator<DialectCollection> {
    return this.#byName.values();
  }

  /**
   * For `_expand=<inner>`: the member `<inner>Id` (in the file's names) and the collection it names, the one whose
   * name is `<inner>` in the plural.
   */
  expansion(inner: string): { member: string; target: DialectCollection } | undefined {
    for (const target of this.#byName.values())
      if (target.definition.singleton !== true && singularOf(target.name) === inner && isPlural(target.name))
        return { member: foreignKey(inner), target };
    return undefined;
  }
}

/** json-server's foreign key for a record of the collection the file calls `collection` (`posts` → `postId`). */
export function foreignKeyOf(collection: string): string {
  return foreignKey(singularOf(collection));
}

/**
 * The member that names a record of `collection` for json-server's cascade (`postId` for `posts`), found as it finds
 * it: `postId` names a record of `posts`, the plural of `post`; none names a record of a collection called `post`.
 */
export function referenceTo(collection: DialectCollection): string | undefined {
  return isPlural(collection.name) ? foreignKeyOf(collection.name) : undefined;
}

function foreignKey(singular: string): string {
  return `${singular}Id`;
}

/** A top-level field's name in the file. */
export function fileName(collection: DialectCollection, field: string): string {
  return collection.names.properties.get(field) ?? field;
}

/** A record as the file has it: its members' names, no timestamps the file had not, no singleton id. */
export function asInFile(collection: DialectCollection, record: JsonValue): JsonObject {
  const shown: Record<string, JsonValue> = {};
  const singleton = collection.definition.singleton === true;
  for (const [key, value] of Object.entries(record as JsonObject)) {
    if ((key === 'created_at' || key === 'updated_at') && !collection.timestamps.includes(key)) continue;
    if (singleton && key === 'id') continue;
    shown[key] = collection.asText.has(key) ? idsAs(value, String) : value;
  }
  return toFileNames(shown, collection.names) as JsonObject;
}

/** A body in the file's names as the core reads it, in declared names; ids of integer collections given as text are
 * numbers. */
export function asDeclared(collection: DialectCollection, body: JsonObject): JsonObject {
  const declared = toDeclaredNames(body, collection.declared);
  if (!isJsonObject(declared)) return {};
  const result: Record<string, JsonValue> = { ...declared };
  for (const field of collection.integerIds)
    if (Object.hasOwn(result, field)) result[field] = idsAs(result[field] as JsonValue, wholeNumber);
  return result;
}

/** `value` (an id, or a list of them) with each id made text or a number by `as`. */
function idsAs(value: JsonValue, as: (id: string | number) => JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map((item: JsonValue) => idsAs(item, as));
  return typeof value === 'number' || typeof value === 'string' ? as(value) : value;
}

/** A string of digits as its number; anything else as it is, for the core to judge. */
function wholeNumber(id: string | number): JsonValue {
  return typeof id === 'string' && /^(0|[1-9][0-9]{0,15})$/.test(id) ? Number(id) : id;
}
