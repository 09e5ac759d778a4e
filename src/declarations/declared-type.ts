// A property's declared `type` (README: Your own resources): one JSON Schema type, or, for a property that may hold
// null, a list of one type and "null" (`["string", "null"]`, JSON Schema 2020-12 §6.1.1), read as the type and whether
// null is allowed.

/** The JSON Schema types a property may declare. */
export type PropertyType = 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object';

export const PROPERTY_TYPES: ReadonlySet<string> = new Set<PropertyType>([
  'string',
  'integer',
  'number',
  'boolean',
  'array',
  'object',
]);

/**
 * `type` read as a type and whether it takes null; `type` itself when it is not a list (checked elsewhere), and
 * undefined as the type of a list that is not one type and "null".
 */
export function declaredType(type: unknown): { readonly type: unknown; readonly nullable: boolean } {
  if (!Array.isArray(type)) return { type, nullable: false };
  const others = type.filter((entry) => entry !== 'null');
  if (type.length !== 2 || others.length !== 1) return { type: undefined, nullable: false };
  return { type: others[0], nullable: true };
}
