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
import { singularOf } from '../resources/singular-nouns.ts';

/** One collection as the dialect serves it. */
export interface DialectCollection {
  readonly definition: ResourceDefinition;
  /** Its name in the file: the path it is served at (`/blog-posts`). */
  readonly name: string;
  readonly names: FileNames;
  readonly declared: DeclaredNames;
  /** The record's own timestamps the file had (`createdAt`): the others are plainrest's and not shown here. */
  readonly timestamps: readonly string[];
}

/** The collections of `table` the dialect serves: top-level ones and singletons; API keys are plainrest's own. */
export class DialectCollections {
  readonly #byName = new Map<string, DialectCollection>();
  readonly #byDefinition = new Map<ResourceDefinition, DialectCollection>();

  constructor(table: ResourceTable) {
    for (const definition of table.resources) {
      if (definition.parent !== undefined || definition.collection === API_KEYS) continue;
      const names = fileNamesOf(definition.collection, definition.declared[FILE_NAMES_MEMBER]);
      const timestamps = ['created_at', 'updated_at'].filter((field) => names.properties.has(field));
      const collection = { definition, name: names.collection, names, declared: declaredNamesOf(names), timestamps };
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
      if (target.definition.singleton !== true && singularOf(target.name) === inner && target.name !== inner)
        return { member: foreignKey(inner), target };
    return undefined;
  }
}

/** json-server's foreign key for a record of the collection the file calls `collection` (`posts` → `postId`). */
export function foreignKeyOf(collection: string): string {
  return foreignKey(singularOf(collection));
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
    shown[key] = value;
  }
  return toFileNames(shown, collection.names) as JsonObject;
}

/** A body in the file's names as the core reads it, in declared names. */
export function asDeclared(collection: DialectCollection, body: JsonObject): JsonObject {
  const declared = toDeclaredNames(body, collection.declared);
  return isJsonObject(declared) ? declared : {};
}
