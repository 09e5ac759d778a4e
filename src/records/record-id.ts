// Record ids (README: Your own resources, ids): a collection's ids are all of one kind, its declared `x-id`: positive
// integers the server makes (the default), uuids the server makes (RFC 9562 §5.4, lower-case), or strings the client
// chooses. Strings compare by code point, which for the ASCII they are limited to is JavaScript's own `<`.

/** A record's id: a number in an integer collection, a string in a uuid or string one. */
export type RecordId = number | string;

export type IdKind = 'integer' | 'uuid' | 'string';

export const ID_KINDS: readonly IdKind[] = ['integer', 'uuid', 'string'];

/**
 * A client-chosen id: unreserved characters of a URI (RFC 3986 §2.3), so a path holds it as it is; not `.` or `..`,
 * which a client resolving a path removes as dot-segments (RFC 3986 §5.2.4) before it is sent.
 */
export const STRING_ID_PATTERN = '^(?!\\.{1,2}$)[A-Za-z0-9._~-]{1,128}$';
const STRING_ID = /^(?!\.{1,2}$)[A-Za-z0-9._~-]{1,128}$/;
/** A uuid as the server writes it: lower-case hexadecimal in groups of 8-4-4-4-12 (RFC 9562 §4). */
const UUID_PATTERN = '^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$';
const UUID = new RegExp(UUID_PATTERN);

export function isUuid(value: unknown): value is string {
  return typeof value === 'string' && value.length === 36 && UUID.test(value);
}

export function isStringId(value: unknown): value is string {
  return typeof value === 'string' && STRING_ID.test(value);
}

/** Whether `value` may be an id of a collection of `kind`. */
export function isIdOfKind(value: unknown, kind: IdKind): value is RecordId {
  if (kind === 'integer') return typeof value === 'number' && Number.isSafeInteger(value) && value >= 1;
  return kind === 'uuid' ? isUuid(value) : isStringId(value);
}

/** The order of ids: integers numerically, strings by code point (both kinds never meet in one collection). */
export function compareIds(a: RecordId, b: RecordId): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return a < b ? -1 : a > b ? 1 : 0;
}

/** An id of `kind` for the OpenAPI document's examples: the first a collection makes, or one a client could choose. */
export function exampleId(kind: IdKind): RecordId {
  if (kind === 'integer') return 1;
  return kind === 'uuid' ? '0d6f3a52-8c1e-4b7a-9f2d-5e4c3b2a1f00' : 'example-1';
}

/** The JSON Schema of an id of `kind`, as the OpenAPI document gives it (paths, records and references). */
export function idSchema(kind: IdKind): Record<string, unknown> {
  if (kind === 'integer') return { type: 'integer', minimum: 1 };
  // A uuid's pattern too: one in upper case is no id of the collection (a 404), though `format: uuid` would take it.
  return kind === 'uuid'
    ? { type: 'string', format: 'uuid', pattern: UUID_PATTERN }
    : { type: 'string', pattern: STRING_ID_PATTERN };
}
