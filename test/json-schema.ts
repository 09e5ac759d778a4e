// A small JSON Schema checker for the tests (no dependency): the keywords the OpenAPI
// document uses — $ref, anyOf, type, properties, required, additionalProperties, items,
// min/maxItems, enum, const, minimum, maximum, multipleOf, min/maxLength, pattern and
// the date-time and email formats. Returns a list of problems, empty when valid.

type Schema = Record<string, unknown>;

const DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

function typeOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function resolve(root: Schema, reference: string): Schema {
  let node: unknown = root;
  for (const part of reference.replace(/^#\//, '').split('/')) node = (node as Record<string, unknown>)[part];
  if (typeof node !== 'object' || node === null) throw new Error(`unresolvable $ref ${reference}`);
  return node as Schema;
}

export function validateJson(root: Schema, schema: Schema, value: unknown, path = '$'): string[] {
  if (typeof schema['$ref'] === 'string') return validateJson(root, resolve(root, schema['$ref']), value, path);
  const problems: string[] = [];
  if (Array.isArray(schema['anyOf'])) {
    const branches = (schema['anyOf'] as Schema[]).map((branch) => validateJson(root, branch, value, path));
    if (!branches.some((found) => found.length === 0))
      problems.push(`${path}: fits none of anyOf (${branches.map((found) => found[0]).join('; ')})`);
  }
  const type = schema['type'];
  if (type !== undefined) {
    const allowed = Array.isArray(type) ? (type as string[]) : [type as string];
    const actual = typeOf(value);
    if (!allowed.includes(actual) && !(actual === 'integer' && allowed.includes('number'))) {
      return [`${path}: is ${actual}, not ${allowed.join(' or ')}`];
    }
  }
  if ('const' in schema && value !== schema['const'])
    problems.push(`${path}: is not ${JSON.stringify(schema['const'])}`);
  if (Array.isArray(schema['enum']) && !(schema['enum'] as unknown[]).includes(value))
    problems.push(`${path}: ${JSON.stringify(value)} is not in the enum`);
  if (typeof value === 'number') {
    if (typeof schema['minimum'] === 'number' && value < schema['minimum']) problems.push(`${path}: below minimum`);
    if (typeof schema['maximum'] === 'number' && value > schema['maximum']) problems.push(`${path}: above maximum`);
    if (typeof schema['multipleOf'] === 'number' && Number((value / schema['multipleOf']).toFixed(6)) % 1 !== 0)
      problems.push(`${path}: not a multiple of ${schema['multipleOf']}`);
  }
  if (typeof value === 'string') {
    const length = [...value].length;
    if (typeof schema['minLength'] === 'number' && length < schema['minLength']) problems.push(`${path}: too short`);
    if (typeof schema['maxLength'] === 'number' && length > schema['maxLength']) problems.push(`${path}: too long`);
    if (typeof schema['pattern'] === 'string' && !new RegExp(schema['pattern'], 'u').test(value))
      problems.push(`${path}: does not match ${schema['pattern']}`);
    if (schema['format'] === 'date-time' && !DATE_TIME.test(value)) problems.push(`${path}: not a date-time`);
    if (schema['format'] === 'email' && !/^[^\s@]+@[^\s@]+$/.test(value)) problems.push(`${path}: not an email`);
  }
  if (Array.isArray(value)) {
    if (typeof schema['minItems'] === 'number' && value.length < schema['minItems'])
      problems.push(`${path}: too few items`);
    if (typeof schema['maxItems'] === 'number' && value.length > schema['maxItems'])
      problems.push(`${path}: too many items`);
    const items = schema['items'];
    if (typeof items === 'object' && items !== null)
      value.forEach((item, index) => problems.push(...validateJson(root, items as Schema, item, `${path}[${index}]`)));
  }
  if (typeOf(value) === 'object') {
    const object = value as Record<string, unknown>;
    const properties = (schema['properties'] ?? {}) as Record<string, Schema>;
    for (const name of (schema['required'] ?? []) as string[]) {
      if (!(name in object)) problems.push(`${path}: lacks required ${name}`);
    }
    for (const [name, member] of Object.entries(object)) {
      const property = properties[name];
      if (property !== undefined) problems.push(...validateJson(root, property, member, `${path}.${name}`));
      else if (schema['additionalProperties'] === false) problems.push(`${path}: has undocumented ${name}`);
    }
  }
  return problems;
}
