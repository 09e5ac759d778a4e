// References in a json-server file (README: Moving in from json-server): `postId` whose values are ids of `posts`
// becomes an `x-references` property, `tagIds` whose values are lists of ids of `tags` a list of references; a value
// naming no record is a problem, and so is an id under another name that would not follow its record's new id.

import type { PropertySchema } from '../declarations/declaration.ts';
import type { JsonValue } from '../records/json.ts';
import type { Source } from './file-collections.ts';
import type { Findings, Sample } from './infer-schema.ts';
import { preview } from './infer-schema.ts';
import { singularOf } from './names.ts';

/** `post_id` whose every value is an id (as text or number) of `posts`: the collection it references. */
export function referencedCollection(
  name: string,
  values: readonly Sample[],
  sources: readonly Source[],
): Source | undefined {
  const prefix = /^([a-z][a-z0-9_]*)_id$/.exec(name)?.[1];
  if (prefix === undefined || values.length === 0) return undefined;
  // A singleton's record has no id a reference could name.
  const target = sources.find(
    (source) => source.singleton !== true && (source.name === prefix || singularOf(source.name) === prefix),
  );
  if (target === undefined) return undefined;
  const scalar = values.every((sample) => typeof sample.value === 'string' || typeof sample.value === 'number');
  return scalar ? target : undefined;
}

/**
 * A `…_id` whose values are ids another collection gives up for new numbers, under a name that does not say which
 * (`authorId` naming users): kept as it is, it would name nothing. A problem, saying how to make it a reference.
 */
export function unrecognizedReference(
  key: string,
  values: readonly Sample[],
  sources: readonly Source[],
  findings: Findings,
): void {
  const named = sources.find(
    (source) =>
      source.ids.renumbered.size > 0 &&
      values.length > 0 &&
      values.every((sample) => typeof sample.value === 'string' && source.ids.renumbered.has(sample.value)),
  );
  if (named === undefined) return;
  const singular = singularOf(named.name);
  findings.problems.push(
    `${values[0]?.record}, ${key}: its values are ids of ${named.key}, which get new numbers; name it ` +
      `${singular}_id (or ${singular.replace(/_([a-z0-9])/g, (_, letter: string) => letter.toUpperCase())}Id) ` +
      `to make it a reference that follows them, or give ${named.key} numeric ids`,
  );
}

/** Reports each value that names no record of `target`; true when there was one. */
export function reportDanglingReferences(
  path: string,
  values: readonly Sample[],
  target: Source,
  findings: Findings,
  list = false,
): boolean {
  const named = list
    ? values.flatMap((sample) => (sample.value as JsonValue[]).map((value) => ({ ...sample, value })))
    : values;
  const missing = named.filter((sample) => !target.ids.newIds.has(String(sample.value)));
  for (const sample of missing)
    findings.problems.push(
      `${sample.record}, ${path.slice(path.indexOf('.') + 1)}: ${preview(sample.value)} is the id of no record of ` +
        `${target.key}; ` +
        'correct it or remove it',
    );
  if (missing.length === 0 && list)
    findings.notes.push(
      `${path}: its values are lists of ids of ${target.key}: a list of references to ${target.name}`,
    );
  else if (missing.length === 0)
    findings.notes.push(`${path}: its values are ids of ${target.key}: a reference (x-references ${target.name})`);
  return missing.length > 0;
}

/** `tag_ids` whose every value is a list of ids (as text or numbers) of `tags`: the collection its items reference. */
export function listedCollection(
  name: string,
  values: readonly Sample[],
  sources: readonly Source[],
): Source | undefined {
  const prefix = /^([a-z][a-z0-9_]*)_ids$/.exec(name)?.[1];
  if (prefix === undefined || values.length === 0) return undefined;
  const target = sources.find(
    (source) => source.singleton !== true && (source.name === prefix || singularOf(source.name) === prefix),
  );
  const isIdList = (value: JsonValue): boolean =>
    Array.isArray(value) && value.every((item) => typeof item === 'string' || typeof item === 'number');
  return target !== undefined && values.every((sample) => isIdList(sample.value)) ? target : undefined;
}

/** The schema of a reference to `target` (its ids' type), or of a list of them. */
export function referenceSchema(target: Source, list: boolean, mayHoldNull: boolean): PropertySchema {
  const type = target.ids.kind === 'integer' ? 'integer' : 'string';
  if (list) return { type: 'array', items: { type, 'x-references': target.name } };
  return { type: mayHoldNull ? [type, 'null'] : type, 'x-references': target.name };
}
