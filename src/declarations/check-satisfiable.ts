// Whether each declared property can hold a value at all, so that a declaration the
// checker accepts serves a POST of a record that fits it: bounds with nothing between
// them (JSON Schema 2020-12 §6.2–6.4), a required property no client may give, and a
// default its own schema refuses (checked as a request's value is, by resources/validation.ts).

import { HttpError } from '../errors/errors.ts';
import type { JsonValue } from '../records/json.ts';
import { validateBody } from '../resources/validation.ts';
import { buildVocabulary } from '../resources/vocabulary.ts';
import { compileRule } from './compile-rule.ts';
import type { PropertySchema } from './declaration.ts';
import { child, type Report } from './problems.ts';
import { declaredType } from './declared-type.ts';

/** A default is checked as the value of a one-field body with this name. */
const VALUE = 'value';
const VALUE_NAMES = buildVocabulary({
  language: 'en',
  collection: 'defaults',
  singular: 'default',
  properties: new Map(),
  known: new Set([VALUE]),
});

/** Every collection's properties, in a declaration with no other problem (so every schema compiles). */
export function checkSatisfiable(resources: Readonly<Record<string, unknown>>, problem: Report): void {
  for (const [collection, body] of Object.entries(resources)) {
    const { properties, required } = body as { properties?: Record<string, PropertySchema>; required?: string[] };
    const pointer = child(child('/resources', collection), 'properties');
    for (const [name, schema] of Object.entries(properties ?? {})) {
      checkProperty(schema, child(pointer, name), required?.includes(name) === true, problem);
    }
  }
}

function checkProperty(schema: PropertySchema, pointer: string, required: boolean, problem: Report): void {
  if (required && schema.readOnly === true)
    problem(`${pointer}/readOnly`, 'a required property is given by the client, so it cannot be readOnly');
  if (schema.minLength !== undefined && schema.maxLength !== undefined && schema.minLength > schema.maxLength) {
    problem(`${pointer}/minLength`, `is more than maxLength (${schema.maxLength}): no string fits`);
  }
  if (schema.minItems !== undefined && schema.maxItems !== undefined && schema.minItems > schema.maxItems) {
    problem(`${pointer}/minItems`, `is more than maxItems (${schema.maxItems}): no array fits`);
  }
  if (!hasNumberBetweenBounds(schema))
    problem(pointer, `its bounds leave no ${isInteger(schema) ? 'integer' : 'number'} between them`);
  if (schema.default !== undefined) {
    const refusal = defaultRefusal(schema);
    if (refusal !== undefined) problem(`${pointer}/default`, `does not fit the schema: it ${refusal}`);
  }
  if (schema.items !== undefined) checkProperty(schema.items, `${pointer}/items`, false, problem);
  for (const [name, member] of Object.entries(schema.properties ?? {})) {
    checkProperty(member, child(child(pointer, 'properties'), name), schema.required?.includes(name) === true, problem);
  }
}

function isInteger(schema: PropertySchema): boolean {
  return declaredType(schema.type).type === 'integer';
}

/** Whether some number (an integer, for "type": "integer") lies within the schema's bounds. */
function hasNumberBetweenBounds(schema: PropertySchema): boolean {
  const low = Math.max(schema.minimum ?? -Infinity, schema.exclusiveMinimum ?? -Infinity);
  const high = Math.min(schema.maximum ?? Infinity, schema.exclusiveMaximum ?? Infinity);
  const lowOpen = schema.exclusiveMinimum !== undefined && schema.exclusiveMinimum >= (schema.minimum ?? -Infinity);
  const highOpen = schema.exclusiveMaximum !== undefined && schema.exclusiveMaximum <= (schema.maximum ?? Infinity);
  if (!isInteger(schema)) return low < high || (low === high && !lowOpen && !highOpen);
  const lowest = lowOpen ? Math.floor(low) + 1 : Math.ceil(low);
  const highest = highOpen ? Math.ceil(high) - 1 : Math.floor(high);
  return lowest <= highest;
}

/** Why validation refuses the schema's default as a client's value (readOnly and the like aside), or undefined. */
function defaultRefusal(schema: PropertySchema): string | undefined {
  const { readOnly: _readOnly, writeOnly: _writeOnly, 'x-admin-only': _adminOnly, ...writable } = schema;
  const rule = compileRule(VALUE, writable, false, () => undefined);
  try {
    validateBody([rule], { [VALUE]: schema.default as JsonValue }, VALUE_NAMES, 'create');
    return undefined;
  } catch (error) {
    if (!(error instanceof HttpError) || error.errors === undefined) throw error;
    return error.errors
      .map((refused) =>
        refused.field === VALUE ? refused.message : `${refused.field.slice(VALUE.length)} ${refused.message}`,
      )
      .join('; ');
  }
}
