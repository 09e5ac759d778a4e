// The part of a json-server list's query the core answers itself (docs/json-server.md: Serving json-server's
// dialect): equality on a required `x-filter` property (`category=tea`, repeated: one of), whose values the core reads
// as json-server compares them (text, whole numbers, true and false), so fewer records come to the layer.

import { declaredPath } from '../declarations/file-names.ts';
import type { FieldRule } from '../resources/definition.ts';
import type { DialectCollection } from './collections.ts';
import type { Parameters } from './list-filters.ts';
import { LIST_PARAMETERS } from './list-filters.ts';
import { isWhereParameter } from './where.ts';

/** Parameters json-server ignores, which take no part in a filter. */
const IGNORED = new Set(['callback', '_', '_delay']);
/** The most values a core filter takes (README: Lists, `[in]`). */
const MOST_VALUES = 100;

/** What the core filters (its query, in declared names), and the parameters left to the layer. */
export interface PushedDown {
  readonly coreQuery: string;
  readonly rest: Parameters;
  /** Nothing left to the layer but slicing, embedding and what json-server ignores. */
  readonly plain: boolean;
}

/**
 * The equality filters of `parameters` the core can apply, when every equality filter is one: json-server drops one
 * that names what no record holds, which only a property every record holds is sure not to be.
 */
export function pushedDown(parameters: Parameters, collection: DialectCollection): PushedDown {
  const core: string[] = [];
  const rest = new Map(parameters);
  for (const [name, values] of parameters) {
    if (LIST_PARAMETERS.includes(name) || IGNORED.has(name) || isWhereParameter(name)) continue;
    if (/_(lte|gte|ne|like)$/.test(name)) continue;
    const field = declaredPath(name, collection.declared);
    const rule = collection.definition.fields.find((each) => each.name === field);
    if (rule === undefined || !takes(rule, values)) return { coreQuery: '', rest: parameters, plain: false };
    for (const value of values) core.push(`${encodeURIComponent(field)}=${encodeURIComponent(value)}`);
    rest.delete(name);
  }
  const layered = [...rest.keys()].filter(
    (name) => !['_start', '_end', '_page', '_limit', '_embed', '_expand'].includes(name) && !IGNORED.has(name),
  );
  return { coreQuery: core.join('&'), rest, plain: layered.length === 0 };
}

/** Whether the core's equality on `rule` keeps what json-server's keeps for `values` (compared as text). */
function takes(rule: FieldRule, values: readonly string[]): boolean {
  if (rule.filter !== true || rule.required !== true || rule.nullable === true || values.length > MOST_VALUES)
    return false;
  // Such a property's equality ignores case, where json-server's does not.
  if (rule.unique === 'ignore-case') return false;
  switch (rule.type) {
    case 'string':
      return rule.format === undefined && values.every((value) => value !== '');
    case 'integer':
      return values.every((value) => /^-?(0|[1-9][0-9]{0,14})$/.test(value));
    case 'boolean':
      return values.every((value) => value === 'true' || value === 'false');
    default:
      return false;
  }
}
