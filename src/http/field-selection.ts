// Sparse field selection (README: Lists): `fields=id,name` (`campos` in Portuguese, any vocabulary's names) on a
// record or a list answers only those properties, in the order the resource declares them, so any order of one
// selection gives the same body and ETag. An unknown or write-only name, an empty item, a name given twice: a 400.

import type { ResourceDefinition } from '../resources/definition.ts';
import { isShownOnRead } from '../resources/definition.ts';
import type { FieldError } from '../errors/errors.ts';

/** Any vocabulary's name of a readable top-level property → its declared name, per resource. */
const selectable = new WeakMap<ResourceDefinition, ReadonlyMap<string, string>>();

function selectableNames(definition: ResourceDefinition): ReadonlyMap<string, string> {
  let names = selectable.get(definition);
  if (names === undefined) {
    const table = new Map<string, string>();
    const readable = definition.fields.filter(isShownOnRead);
    for (const rule of readable) table.set(rule.name, rule.name);
    for (const vocabulary of definition.vocabularies.values())
      for (const rule of readable) table.set(vocabulary.name(rule.name), rule.name);
    names = table;
    selectable.set(definition, names);
  }
  return names;
}

/**
 * The declared names `value` selects, in declaration order; pushes an error naming `parameter` instead when it is not a
 * selection.
 */
export function parseFieldSelection(
  definition: ResourceDefinition,
  parameter: string,
  value: string,
  errors: FieldError[],
): readonly string[] | undefined {
  const names = selectableNames(definition);
  const chosen = new Set<string>();
  for (const word of value.split(',')) {
    const name = names.get(word);
    if (name === undefined || chosen.has(name)) {
      const readable = [...new Set(names.values())].join(', ');
      errors.push({
        field: parameter,
        code: 'invalid_value',
        message: `must list distinct readable fields among ${readable}, separated by commas`,
      });
      return undefined;
    }
    chosen.add(name);
  }
  return definition.fields.filter((rule) => chosen.has(rule.name)).map((rule) => rule.name);
}
