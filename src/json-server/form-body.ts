// A form body as json-server 0.17 reads it (docs/json-server.md: Serving json-server's dialect; body-parser's
// urlencoded, extended: false: Node's querystring, names as written, a repeated name a list), then each value typed as
// the declared property it goes to where the text says exactly that value (`3`, `true`); else it stays text, for the
// validation's 422 a JSON body with that text gets.

import { parse } from 'node:querystring';
import { HttpError } from '../errors/errors.ts';
import type { JsonObject, JsonValue } from '../records/json.ts';
import type { FieldRule } from '../resources/definition.ts';
import type { DialectCollection } from './collections.ts';
import { fileName } from './collections.ts';

/** The most fields body-parser reads of a form (its parameterLimit); more is 413. */
const MOST_FIELDS = 1000;

/** A form's bytes (UTF-8) as an object of texts, and lists of them where a name repeats. */
export function formObject(bytes: Buffer): JsonObject {
  const text = bytes.toString('utf8');
  if (text.split('&').length > MOST_FIELDS)
    throw new HttpError('payload_too_large', `a form of more than ${MOST_FIELDS} fields`);
  // Made with fromEntries, so a field named `__proto__` is a member like any other.
  const fields = Object.entries(parse(text, '&', '=', { maxKeys: MOST_FIELDS })).flatMap(([name, value]) =>
    value === undefined ? [] : [[name, typeof value === 'string' ? value : [...value]] as const],
  );
  return Object.fromEntries(fields) as JsonObject;
}

/** `form` (in the file's names) with each value in the type of the property of `collection` it names. */
export function typedForm(form: JsonObject, collection: DialectCollection): JsonObject {
  const typed = Object.entries(form).map(([name, value]) => {
    const rule = collection.definition.fields.find((each) => fileName(collection, each.name) === name);
    return [name, rule === undefined ? value : typedValue(value, rule, collection)] as const;
  });
  return Object.fromEntries(typed) as JsonObject;
}

/** A form's value for `rule`: a list's items each typed (one value is a list of one), a single value typed. */
function typedValue(value: JsonValue, rule: FieldRule, collection: DialectCollection): JsonValue {
  const items = rule.type === 'array' ? rule.items : undefined;
  if (items !== undefined)
    return (Array.isArray(value) ? value : [value]).map((item: JsonValue) => typedText(item, items, collection));
  return Array.isArray(value) ? value : typedText(value, rule, collection);
}

/** The value `text` says in `rule`'s type, where it says one exactly; else `text` as it came. */
function typedText(text: JsonValue, rule: FieldRule, collection: DialectCollection): JsonValue {
  if (typeof text !== 'string') return text;
  // An empty field of a property that may be null and holds no text is null (an HTML form's empty number input).
  if (text === '' && rule.nullable === true && rule.type !== 'string') return null;
  const integerIds = rule.type === 'id' && collection.definition.idKind === 'integer';
  switch (rule.type) {
    case 'integer':
    case 'id':
      return (rule.type === 'integer' || integerIds) && /^-?(0|[1-9][0-9]*)$/.test(text) && isSafe(text)
        ? Number(text)
        : text;
    case 'number':
      return /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?$/.test(text) && Number.isFinite(Number(text))
        ? Number(text)
        : text;
    case 'boolean':
      return text === 'true' ? true : text === 'false' ? false : text;
    case 'enum':
      return rule.values?.find((choice) => typeof choice !== 'object' && String(choice) === text) ?? text;
    default:
      return text;
  }
}

function isSafe(digits: string): boolean {
  return Number.isSafeInteger(Number(digits));
}
