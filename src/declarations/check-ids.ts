// Checking `x-id` (README: Your own resources, ids): a collection's ids are integers (the default), uuids or strings,
// and every `x-references` to it, at any depth, is declared as that kind's type: "integer", else "string". A reference
// sits on a property, or on an array's `items` (an array of references), never on an array itself.

import { isJsonObject as isObject } from '../records/json.ts';
import { ID_KINDS, type IdKind } from '../records/record-id.ts';
import { declaredType } from './declared-type.ts';
import { child, type Json, type JsonObject, type Report } from './problems.ts';

/** Every problem of the `x-id`s of `resources` (the declaration's `resources` object) and of the references to them. */
export function checkIds(resources: JsonObject, problem: Report): void {
  const kinds = new Map<string, IdKind>([['users', 'integer']]);
  for (const [collection, body] of Object.entries(resources)) {
    if (!isObject(body)) continue;
    const declared = body['x-id'];
    if (declared === undefined) {
      kinds.set(collection, 'integer');
      continue;
    }
    const at = child(child('/resources', collection), 'x-id');
    if (typeof declared !== 'string' || !(ID_KINDS as readonly string[]).includes(declared))
      problem(at, 'must be "integer" (the default), "uuid" or "string"');
    else if (declared !== 'integer' && collection === 'users')
      problem(at, "users' ids are integers: tokens and owners name them so");
    else if (declared !== 'integer' && body['x-singleton'] === true)
      problem(at, 'a singleton has no id in its path: it takes no x-id');
    else kinds.set(collection, declared as IdKind);
  }
  for (const [collection, body] of Object.entries(resources)) {
    if (!isObject(body) || !isObject(body['properties'])) continue;
    const pointer = child(child('/resources', collection), 'properties');
    for (const [name, schema] of Object.entries(body['properties']))
      checkReferenceTypes(schema, child(pointer, name), kinds, problem);
  }
}

/** An `x-references` at any depth of `schema` is of its target's id type, and not on an array itself. */
function checkReferenceTypes(schema: Json, pointer: string, kinds: ReadonlyMap<string, IdKind>, problem: Report): void {
  if (!isObject(schema)) return;
  const target = schema['x-references'];
  const kind = typeof target === 'string' ? kinds.get(target) : undefined;
  if (kind !== undefined) {
    const { type } = declaredType(schema['type']);
    const wanted = kind === 'integer' ? 'integer' : 'string';
    if (type === 'array')
      problem(
        child(pointer, 'x-references'),
        `an array of references puts "x-references" on its "items", each "type": "${wanted}"`,
      );
    else if (type !== wanted)
      problem(
        child(pointer, 'type'),
        `"${target as string}" has ${kind} ids: a reference to it is "type": "${wanted}"` +
          (wanted === 'string' ? ', or ["string", "null"]' : ''),
      );
  }
  checkReferenceTypes(schema['items'], child(pointer, 'items'), kinds, problem);
  const members = schema['properties'];
  if (!isObject(members)) return;
  for (const [name, member] of Object.entries(members))
    checkReferenceTypes(member, child(child(pointer, 'properties'), name), kinds, problem);
}
