// A record's query string (README: Lists, Methods): its GET takes `fields` (http/field-selection.ts) and `embed`
// (http/embed-parameter.ts), each once, under any vocabulary's name (`campos`); every other path that is not a list
// (POST, PUT, PATCH, DELETE, tokens, the service endpoints) takes none. Anything else is a 400.

import type { ResourceDefinition } from '../resources/definition.ts';
import type { FieldError } from '../errors/errors.ts';
import { queryError } from '../errors/errors.ts';
import type { Embed } from './embed-parameter.ts';
import { parseEmbed } from './embed-parameter.ts';
import { parseFieldSelection } from './field-selection.ts';
import { declaredParameterNames } from './list-query.ts';
import { parameterPairs } from './query-string.ts';

/** What a record's GET takes: `fields` and `embed` (undefined: none given). */
export interface RecordParameters {
  readonly fields?: readonly string[];
  readonly embed?: readonly Embed[];
}

/** A record's GET without a query string, the usual one: one object for all of them. */
const NO_PARAMETERS: RecordParameters = Object.freeze({});

/** A record's query: `fields` and `embed` only, each once; any other parameter is a 400. */
export function parseRecordParameters(definition: ResourceDefinition, queryString: string): RecordParameters {
  if (queryString === '') return NO_PARAMETERS;
  const declared = declaredParameterNames(definition);
  const errors: FieldError[] = [];
  let fields: readonly string[] | undefined;
  let embed: readonly Embed[] | undefined;
  const seen = new Set<string>();
  for (const [name, value] of parameterPairs(queryString)) {
    const kind = declared.get(name);
    if (kind !== 'fields' && kind !== 'embed') {
      errors.push({
        field: name,
        code: 'unknown_parameter',
        message: 'is not a parameter of a record; use fields or embed',
      });
    } else if (seen.has(kind)) {
      errors.push({ field: name, code: 'repeated_parameter', message: 'may be given once' });
    } else {
      seen.add(kind);
      if (kind === 'fields') fields = parseFieldSelection(definition, name, value, errors);
      else embed = parseEmbed(definition, name, value, errors);
    }
  }
  if (errors.length > 0) throw queryError(errors);
  return { ...(fields === undefined ? {} : { fields }), ...(embed === undefined ? {} : { embed }) };
}

/** For every other path that is not a list: any parameter at all is a 400. */
export function rejectQueryParameters(queryString: string): void {
  if (queryString === '') return;
  const names = [...new Set(parameterPairs(queryString).map(([name]) => name))];
  if (names.length === 0) return;
  throw queryError(
    names.map((name) => ({ field: name, code: 'unknown_parameter', message: 'this path takes no query parameters' })),
  );
}
