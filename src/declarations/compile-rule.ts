// One property's schema compiled into the field rule validation, storage, lists and the OpenAPI document read
// (README: Your own resources): its type, who may write it, its bounds, pattern and format, its members and elements,
// and the x- keywords; at start, once per declared property and again for each member or element.

import type { FieldRule, FieldType } from '../resources/definition.ts';
import { LinearPattern } from '../patterns/linear-pattern.ts';
import { BOUND_KEYWORDS } from './keywords.ts';
import type { PropertySchema } from './declaration.ts';
import { declaredType } from './declared-type.ts';

/** A rule as it is being compiled; a FieldRule once returned. */
type RuleInProgress = { -readonly [K in keyof FieldRule]: FieldRule[K] };

/** A property's schema as a field rule (at the top level, or a member or element of one). */
export function compileRule(
  name: string,
  schema: PropertySchema,
  required: boolean,
  singularOf: (collection: string) => string | undefined,
): FieldRule {
  const declared = declaredType(schema.type);
  const type = (schema.enum !== undefined ? 'enum' : (declared.type ?? 'string')) as FieldType;
  const writeOnly = schema.writeOnly === true;
  const access =
    schema.readOnly === true
      ? 'server'
      : writeOnly
        ? 'write-only'
        : schema['x-admin-only'] === true
          ? 'restricted'
          : 'client';
  const memberRequired = new Set(schema.required ?? []);
  const rule: RuleInProgress = { name, type, access, declared: { ...schema } };
  if (required) rule.required = true;
  if (declared.nullable) rule.nullable = true;
  for (const keyword of BOUND_KEYWORDS) {
    const bound = schema[keyword];
    if (typeof bound === 'number') rule[keyword] = bound;
  }
  if (schema.pattern !== undefined) rule.pattern = new LinearPattern(schema.pattern);
  if (schema.format !== undefined) rule.format = schema.format;
  if (schema.multipleOf !== undefined) {
    const places = decimalPlacesOf(schema.multipleOf);
    if (places !== undefined) rule.decimalPlaces = places;
  }
  if (schema.enum !== undefined) rule.values = [...schema.enum];
  if (schema.items !== undefined) rule.items = compileRule(name, schema.items, false, singularOf);
  if (schema.properties !== undefined) {
    rule.members = Object.entries(schema.properties).map(([member, memberSchema]) =>
      compileRule(member, memberSchema, memberRequired.has(member), singularOf),
    );
  }
  if (schema.default !== undefined) rule.default = schema.default;
  const unique = schema['x-unique'];
  if (unique !== undefined) rule.unique = unique === 'ignore-case' ? 'ignore-case' : 'exact';
  const references = schema['x-references'];
  if (references !== undefined) {
    rule.references = references;
    rule.referencedSingular = singularOf(references) ?? references;
  }
  if (schema['x-on-delete'] !== undefined) rule.onDelete = schema['x-on-delete'];
  if (schema['x-transitions'] !== undefined) rule.transitions = schema['x-transitions'];
  if (schema['x-owner-may-set'] !== undefined) rule.ownerMaySet = [...schema['x-owner-may-set']];
  if (schema['x-initial'] !== undefined) rule.initial = [...schema['x-initial']];
  if (writeOnly && schema.format === 'password') rule.storedAs = `${name}_hash`;
  if (schema['x-filter'] === true) rule.filter = true;
  if (schema['x-sort'] === true) rule.sort = true;
  if (schema['x-search'] === true) rule.search = true;
  return rule;
}

/** k when `multipleOf` is exactly 10^-k (0.1, 0.01, …), so that "a multiple" means "at most k decimals". */
export function decimalPlacesOf(multipleOf: number): number | undefined {
  for (let places = 1; places <= 15; places++) if (multipleOf === Number(`1e-${places}`)) return places;
  return undefined;
}
