// A list's filters as SQL conditions (README: Lists, "Filter operators"): equality (a value unique ignoring case
// compares with lower()), bounds, `in` as `= ANY`, `ne` as IS DISTINCT FROM (a row without the value differs), `null`
// as IS NULL, and `contains`/`starts` on the text folded as plainrest folds it (store/folded-text.ts).

import type { Condition } from 'plainrest';
import { quoted } from './schema.ts';

/**
 * The marks folding drops: the same class as plainrest's store/folded-text.ts (test/folded-text.test.ts holds them
 * equal), which PostgreSQL's regular expressions read as JavaScript's do.
 */
export const COMBINING_MARKS = '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]';

const COMPARISON = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;

/** A uuid as plainrest writes and accepts one (its records/record-id.ts): lower-case, in groups of 8-4-4-4-12. */
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * `condition` as SQL, its values appended to `values` as parameters ($1, $2, …); on a jsonb column (`json`: an enum
 * of numbers and text) each value is sent as JSON text and compared as jsonb. On a uuid column (`uuid`: a reference
 * to a uuid collection) a value is compared as the column is only when it is a uuid as plainrest writes them (the
 * column's index then serves); otherwise the column is compared as its text, as the memory store compares strings (a
 * uuid column refuses `abc`, and would take an upper-case uuid for its lower-case one).
 */
export function conditionSql(condition: Condition, values: unknown[], json = false, uuid = false): string {
  const asUuid =
    uuid &&
    ((condition.op === 'eq' && UUID.test(String(condition.value))) ||
      (condition.op === 'in' && condition.values.every((value) => UUID.test(String(value)))));
  const column = uuid && !asUuid ? `${quoted(condition.field)}::text` : quoted(condition.field);
  const parameter = (value: unknown): string => {
    values.push(
      json ? (Array.isArray(value) ? value.map((item) => JSON.stringify(item)) : JSON.stringify(value)) : value,
    );
    return json ? `$${values.length}::jsonb${Array.isArray(value) ? '[]' : ''}` : `$${values.length}`;
  };
  switch (condition.op) {
    case 'eq':
    case 'ne': {
      const operator = condition.op === 'eq' ? '=' : 'IS DISTINCT FROM';
      return condition.ignoreCase === true && typeof condition.value === 'string'
        ? `lower(${column}) ${operator} lower(${parameter(condition.value)})`
        : `${column} ${operator} ${parameter(condition.value)}`;
    }
    case 'in':
      // Ignoring case, each value is lower-cased as the column is, by the database's lower().
      return condition.ignoreCase === true
        ? `lower(${column}) IN (SELECT lower(value) FROM unnest(${parameter(condition.values)}::text[]) AS value)`
        : `${column} = ANY(${parameter(condition.values)})`;
    case 'null':
      return `${column} IS ${condition.isNull ? '' : 'NOT '}NULL`;
    case 'contains':
      return `strpos(${folded(column)}, ${parameter(condition.text)}) > 0`;
    case 'starts':
      return `starts_with(${folded(column)}, ${parameter(condition.text)})`;
    default: {
      const operator = COMPARISON[condition.op];
      // A declared date-time (a text column) compares as the instant it names; a number bound may hold a fraction
      // where the column is an integer.
      if (condition.instant === true)
        return `${column}::timestamptz ${operator} ${parameter(condition.value)}::timestamptz`;
      if (typeof condition.value === 'number') return `${column} ${operator} ${parameter(condition.value)}::numeric`;
      return `${column} ${operator} ${parameter(condition.value)}`;
    }
  }
}

/**
 * The text of `column` folded: NFD, marks dropped, lower-cased as Unicode says (ICU's root collation, whatever the
 * database's locale: under `C`, lower() changes ASCII letters only).
 */
function folded(column: string): string {
  return `lower(regexp_replace(normalize(${column}, NFD), '${COMBINING_MARKS}', '', 'g') COLLATE "und-x-icu")`;
}
