// The document's filter operators of a list (README: Lists, "Filter operators"; http/filter-operators.ts): per
// `x-filter` property `[in]` (an array, comma-separated: OpenAPI's form style, not exploded), `[ne]`, `[null]`, and
// on text `[contains]` and `[starts]`; and `or=(…)`, whose pattern lists each property's conditions.

import type { FieldRule, ResourceDefinition, Vocabulary } from '../resources/definition.ts';
import { MAX_TEXT_LENGTH, MAX_VALUES, takesRanges, takesText } from '../http/filter-operators.ts';

type Json = Record<string, unknown>;

/** What a filter's value may be, by the field's type. */
export function filterSchema(rule: FieldRule): Json {
  if (rule.values !== undefined)
    return rule.values.every((value) => typeof value === 'string')
      ? { type: 'string', enum: [...rule.values] }
      : { enum: [...rule.values] };
  if (rule.type === 'boolean' || rule.type === 'integer' || rule.type === 'number') return { type: rule.type };
  return { type: 'string', minLength: 1, ...(rule.maxLength === undefined ? {} : { maxLength: rule.maxLength }) };
}

/** `category[in]`, `category[ne]`, `category[null]`, `category[contains]`, `category[starts]`, …, and `or`. */
export function operatorParameters(
  definition: ResourceDefinition,
  vocabulary: Vocabulary,
  examples: Readonly<Record<string, string>>,
): Json[] {
  const parameters: Json[] = [];
  const filtered = definition.fields.filter((rule) => rule.filter === true);
  for (const rule of filtered) {
    const name = vocabulary.name(rule.name);
    const example = exampleValue(rule, examples[rule.name]);
    parameters.push(
      {
        name: `${name}[in]`,
        in: 'query',
        description: `${name} is one of these (at most ${MAX_VALUES}; a comma in a value as %2C)`,
        style: 'form',
        explode: false,
        schema: { type: 'array', items: filterSchema(rule), minItems: 1, maxItems: MAX_VALUES },
        example: [example],
      },
      {
        name: `${name}[ne]`,
        in: 'query',
        description: `${name} is not this (records without it included)`,
        schema: filterSchema(rule),
        example,
      },
      {
        name: `${name}[null]`,
        in: 'query',
        description: `true: ${name} absent; false: present`,
        schema: { type: 'boolean' },
        example: false,
      },
    );
    if (!takesText(rule)) continue;
    for (const [op, words] of [
      ['contains', 'holds this text'],
      ['starts', 'starts with this text'],
    ] as const) {
      parameters.push({
        name: `${name}[${op}]`,
        in: 'query',
        description: `${name} ${words}, ignoring case and accents`,
        schema: { type: 'string', minLength: 1, maxLength: MAX_TEXT_LENGTH },
        example: String(example).slice(0, 3),
      });
    }
  }
  const [first] = filtered;
  if (first === undefined) return parameters;
  const item = `(${filtered.map((rule) => conditionPattern(rule, vocabulary.name(rule.name))).join('|')})`;
  parameters.push({
    name: 'or',
    in: 'query',
    description:
      'any of these conditions, each property.operator.value (PostgREST syntax; operators eq, ne, gt, gte, lt, lte, ' +
      'in.(a,b), contains, starts, null)',
    schema: { type: 'string', pattern: `^\\(${item}(,${item}){0,4}\\)$` },
    example: anyOfExample(first, vocabulary.name(first.name), exampleValue(first, examples[first.name])),
  });
  return parameters;
}

/** The conditions `or` takes on one property, as a pattern (values drawn from a simple subset of each type's). */
function conditionPattern(rule: FieldRule, name: string): string {
  const value = valuePattern(rule);
  const property = escaped(name);
  const conditions = [
    `${property}\\.(eq|ne)\\.${value}`,
    `${property}\\.in\\.\\(${value}(,${value}){0,3}\\)`,
    `${property}\\.null\\.(true|false)`,
  ];
  if (takesRanges(rule)) conditions.push(`${property}\\.(gt|gte|lt|lte)\\.${value}`);
  if (takesText(rule)) conditions.push(`${property}\\.(contains|starts)\\.[a-z0-9]{1,10}`);
  return conditions.join('|');
}

/** The example of an equality filter on `rule`'s property (examples.ts), as its type: else a value it may hold. */
function exampleValue(rule: FieldRule, text: string | undefined): string | number | boolean {
  if (rule.type === 'number' || rule.type === 'integer') return text === undefined ? 1 : Number(text);
  if (rule.type === 'boolean') return text === undefined ? true : text === 'true';
  const first = rule.values?.[0];
  return text ?? (typeof first === 'string' || typeof first === 'number' ? first : 'text');
}

/** `(category.eq.tea,category.null.true)`, or only the second when the example is not one the pattern shows. */
function anyOfExample(rule: FieldRule, name: string, value: string | number | boolean): string {
  const shown = new RegExp(`^${valuePattern(rule)}$`).test(String(value));
  return shown ? `(${name}.eq.${String(value)},${name}.null.true)` : `(${name}.null.false)`;
}

function valuePattern(rule: FieldRule): string {
  if (rule.values !== undefined) return `(${rule.values.map((value) => escaped(String(value))).join('|')})`;
  if (rule.type === 'boolean') return '(true|false)';
  if (rule.type === 'integer') return '-?[0-9]{1,9}';
  if (rule.type === 'number') return '-?[0-9]{1,6}(\\.[0-9]{1,2})?';
  if (rule.format === 'date') return '20[0-9]{2}-0[1-9]-[0-2][1-9]';
  if (rule.format === 'date-time') return '20[0-9]{2}-0[1-9]-[0-2][1-9]T[01][0-9]:[0-5][0-9]:[0-5][0-9]Z';
  return `[a-z0-9]{1,${Math.min(rule.maxLength ?? 10, 10)}}`;
}

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
