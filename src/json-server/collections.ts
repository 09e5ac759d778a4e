// The collections json-server's dialect serves (docs/json-server.md: Serving json-server's dialect), under the file's
// names (declarations/file-names.ts), and json-server's relations between them: `postId` names a post, found for a
// nested route, `_embed` and `_expand` and its cascade through the declared references. Records go out in the file's
// names, without the timestamps a file did not have; bodies come in translated to the declared names.

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
import type { FieldRule, ResourceDefinition, ResourceTable } from '../resources/definition.ts';

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
   * The field of `child` that names a record of `parent` as json-server's `<singular>Id` does (`postId` in comments):
   * a declared reference to it, the one named so when there are several.
   */
  foreignKey(child: DialectCollection, parent: DialectCollection): FieldRule | undefined {
    const references = child.definition.fields.filter(
      (rule) => rule.references === parent.definition.collection && rule.type !== 'array',
    );
    const named = `${parent.definition.singular}_id`;
    return references.find((rule) => rule.name === named) ?? references[0];
  }

  /** For `_expand=<inner>` on `collection`: its field `<inner>Id` (file names), a reference, and what it names. */
  expansion(collection: DialectCollection, inner: string): { field: string; target: DialectCollection } | undefined {
    for (const rule of collection.definition.fields) {
      if (rule.references === undefined || fileName(collection, rule.name) !== `${inner}Id`) continue;
      const target = [...this.#byDefinition.entries()].find(([each]) => each.collection === rule.references)?.[1];
      if (target !== undefined) return { field: rule.name, target };
    }
    return undefined;
  }
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
