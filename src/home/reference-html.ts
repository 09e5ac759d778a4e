// The reference part of the home page, written as HTML from the OpenAPI document: for every resource its record as a
// table of fields, then every operation with its parameters, an example body, the status codes it can answer (each
// linked to its meaning) and a "Try it" button that puts the request in the form, each path under the base path. Every
// text taken from the document goes through `escapeHtml`.

import type { ResourceDefinition, ResourceTable } from '../resources/definition.ts';
import type { Language } from '../resources/definition.ts';
import { collectionPattern } from '../routing/route-table.ts';
import { vocabularyOf } from '../resources/definition.ts';
import type { OpenApiView, OperationView, ParameterView, SchemaView } from './openapi-view.ts';
import { HTTP_METHODS, resolve } from './openapi-view.ts';
import { STATUS_MEANINGS } from './status-meanings.ts';

const ESCAPES: Readonly<Record<string, string>> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};

/** Text safe inside an element or a quoted attribute. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (character) => ESCAPES[character] as string);
}

/**
 * Text written for paths at the root (`log in (POST /v1/tokens)`, a situation's key `POST /v1/tokens 201`, the
 * document's descriptions, whose paths are relative to its server) naming them under `basePath` (http/base-path.ts).
 */
export function namedUnder(text: string, basePath: string): string {
  if (basePath === '') return text;
  return text.replace(/(^|[\s(])\/v1\b/g, (_, before: string) => `${before}${basePath}/v1`);
}

/** The path with each `{name_id}` filled with 1, which names a record in the example data. */
export function examplePath(path: string): string {
  return path.replace(/\{[a-z_]+\}/g, '1');
}

function typeOf(document: OpenApiView, schema: SchemaView): string {
  const types = Array.isArray(schema.type) ? schema.type : [schema.type ?? 'any'];
  const type = types.filter((name) => name !== 'null').join(' or ');
  if (type === 'array' && schema.items !== undefined) {
    return `list of {${Object.keys(resolve(document, schema.items).properties ?? {}).join(', ')}}`;
  }
  return schema.format === undefined ? type : `${type} (${schema.format})`;
}

function rulesOf(schema: SchemaView): string {
  const rules: string[] = [];
  const range = (min: number | undefined, max: number | undefined, unit: string): void => {
    if (min !== undefined && max !== undefined) rules.push(`${min}–${max}${unit}`);
    else if (min !== undefined) rules.push(`at least ${min}${min === 1 ? unit.replace(/s$/, '') : unit}`);
    else if (max !== undefined) rules.push(`at most ${max}${unit}`);
  };
  range(schema.minLength, schema.maxLength, ' characters');
  range(schema.minimum, schema.maximum, '');
  range(schema.minItems, schema.maxItems, ' items');
  if (schema['x-max-decimal-places'] === 2) rules.push('at most two decimals');
  if (schema.enum !== undefined) rules.push(`one of ${schema.enum.join(', ')}`);
  return rules.join('; ');
}

/**
 * The record's fields: type, rules, and what a client may do with each (from the create body's schema); and what the
 * 201 alone shows (an API key's secret).
 */
function recordTable(
  document: OpenApiView,
  name: string,
  record: SchemaView,
  create: SchemaView,
  created: SchemaView,
): string {
  const createFields = create.properties ?? {};
  const fields: [string, SchemaView][] = Object.entries(record.properties ?? {});
  for (const [field, schema] of Object.entries(createFields))
    if (schema.writeOnly === true) fields.push([field, schema]);
  const shownOnce = Object.keys(created.properties ?? {}).filter((field) => record.properties?.[field] === undefined);
  for (const field of shownOnce) fields.push([field, created.properties?.[field] as SchemaView]);
  const rows = fields.map(([field, schema]) => {
    const required = create.required?.includes(field) === true;
    const use = shownOnce.includes(field)
      ? 'made by the server, shown once: in the answer that creates it'
      : schema.readOnly === true
        ? 'set by the server'
        : schema.writeOnly === true
          ? 'write-only: accepted, never shown'
          : required
            ? 'required'
            : 'optional';
    return `<tr><th scope="row"><code>${escapeHtml(field)}</code></th><td>${escapeHtml(typeOf(document, schema))}</td><td>${escapeHtml(rulesOf(schema))}</td><td>${use}</td></tr>`;
  });
  return (
    `<div class="table-wrap" role="region" aria-label="fields of ${escapeHtml(name)}" tabindex="0"><table>` +
    `<caption>A ${escapeHtml(name)} record</caption>` +
    '<thead><tr><th scope="col">field</th><th scope="col">type</th><th scope="col">rules</th><th scope="col">on create</th></tr></thead>' +
    `<tbody>${rows.join('')}</tbody></table></div>`
  );
}

function parameterItem(parameter: ParameterView): string {
  const bounds = parameter.schema === undefined ? '' : rulesOf(parameter.schema);
  const description = [parameter.description, bounds].filter((part) => part !== undefined && part !== '').join('; ');
  return `<li><code>${escapeHtml(parameter.name)}</code> (${parameter.in}): ${escapeHtml(description)}</li>`;
}

/** A status the operation can answer, linked to its meaning; a success says what this operation gives back. */
function statusLink(status: string, description: string): string {
  const known = STATUS_MEANINGS.get(Number(status));
  const link = `<a href="#status-${status}">${status}</a>`;
  return Number(status) < 400 && description !== known?.title ? `${link} (${escapeHtml(description)})` : link;
}

/** The example request body, from the schema's `examples`. */
function exampleBody(
  document: OpenApiView,
  operation: OperationView,
): { contentType: string; example: unknown } | undefined {
  const [contentType, media] = Object.entries(operation.requestBody?.content ?? {})[0] ?? [];
  if (contentType === undefined || media === undefined) return undefined;
  return { contentType, example: resolve(document, media.schema).examples?.[0] ?? {} };
}

/** Where the reference is: the document, the vocabulary shown, its word for `limit`, and the base path. */
interface ReferencePlace {
  readonly document: OpenApiView;
  readonly language: Language;
  readonly limitWord: string;
  readonly basePath: string;
}

function operationHtml(
  { document, language, limitWord, basePath }: ReferencePlace,
  path: string,
  method: string,
  operation: OperationView,
): string {
  const id = `${language}-${method}-${path.replace(/[^a-z0-9]+/gi, '-')}`;
  const parameters = [...(document.paths[path]?.parameters ?? []), ...(operation.parameters ?? [])];
  const body = exampleBody(document, operation);
  const verb = method.toUpperCase();
  const isList = parameters.some((parameter) => parameter.name === limitWord);
  const query = isList ? `${limitWord}=5` : '';
  const tryPath = basePath + examplePath(path);
  const tryTarget = tryPath + (query === '' ? '' : `?${query}`);
  const statuses = Object.entries(operation.responses).filter(([status]) => status !== 'default');
  const exampleText = body === undefined ? '' : JSON.stringify(body.example);
  return [
    `<article class="operation" aria-labelledby="${id}">`,
    `<h4 id="${id}"><span class="method">${verb}</span> <code>${escapeHtml(basePath + path)}</code> <span>${escapeHtml(operation.summary)}</span></h4>`,
    operation.security?.length === 0 ? '<p class="hint">Open: no token needed.</p>' : '',
    operation.description === undefined
      ? ''
      : `<p class="hint">${escapeHtml(namedUnder(operation.description, basePath))}</p>`,
    parameters.length === 0 ? '' : `<p>Parameters:</p><ul>${parameters.map(parameterItem).join('')}</ul>`,
    body === undefined
      ? ''
      : `<p>Body (<code>${escapeHtml(body.contentType)}</code>), for example:</p><pre>${escapeHtml(exampleText)}</pre>`,
    `<p>Answers: ${statuses.map(([status, response]) => statusLink(status, response.description)).join(', ')}.</p>`,
    `<button type="button" data-method="${verb}" data-path="${escapeHtml(tryPath)}" data-query="${escapeHtml(query)}"` +
      (body === undefined ? '' : ` data-example="${escapeHtml(exampleText)}"`) +
      ` aria-label="Try it: ${verb} ${escapeHtml(tryTarget)}">Try it</button>`,
    '</article>',
  ].join('');
}

/** Every operation of the paths `include` selects, in document order. */
function operationsHtml(place: ReferencePlace, include: (path: string, operation: OperationView) => boolean): string {
  const parts: string[] = [];
  for (const [path, item] of Object.entries(place.document.paths)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (operation !== undefined && include(path, operation))
        parts.push(operationHtml(place, path, method, operation));
    }
  }
  return parts.join('\n');
}

/** One resource in one vocabulary: its record's table, then its operations (those tagged with its collection name). */
function resourceHtml(place: ReferencePlace, tag: string, singular: string): string {
  const { document, language } = place;
  const collectionPath = Object.keys(document.paths).find((path) => document.paths[path]?.post?.tags?.[0] === tag);
  const collection = collectionPath === undefined ? undefined : document.paths[collectionPath];
  const list = collection?.get?.responses['200']?.content?.['application/json']?.schema;
  const listSchema = list === undefined ? {} : resolve(document, list);
  const items = listSchema.properties?.['data']?.items;
  // A singleton has no collection path: its read and its PUT's body stand for the list's record and the create's body.
  const single =
    collection === undefined
      ? Object.values(document.paths).find(
          (item) => item.put?.tags?.[0] === tag && item.post === undefined && item.delete === undefined,
        )
      : undefined;
  const read = single?.get?.responses['200']?.content?.['application/json']?.schema;
  const record = items?.anyOf?.[0] ?? items ?? (read === undefined ? undefined : resolve(document, read).anyOf?.[0]);
  const create =
    collection?.post?.requestBody?.content['application/json']?.schema ??
    single?.put?.requestBody?.content['application/json']?.schema;
  const created = collection?.post?.responses['201']?.content?.['application/json']?.schema;
  const table =
    record === undefined || create === undefined
      ? ''
      : recordTable(
          document,
          singular,
          resolve(document, record),
          resolve(document, create),
          created === undefined ? {} : resolve(document, created),
        );
  const operations = operationsHtml(place, (_, operation) => operation.tags?.[0] === tag);
  return `<section aria-labelledby="${language}-${tag}"><h3 id="${language}-${tag}">${escapeHtml(tag)}</h3>${table}${operations}</section>`;
}

/**
 * The reference section: the service's own operations, then every resource in each vocabulary (all but English hidden
 * until chosen), and those served at the same paths in every vocabulary once; their paths under `basePath`.
 */
export function referenceHtml(document: OpenApiView, table: ResourceTable, basePath: string): string {
  const resourceTags = new Set(
    table.languages.flatMap((language) =>
      table.resources.map((definition) => vocabularyOf(definition, language).collection),
    ),
  );
  const service = operationsHtml(
    { document, language: 'en', limitWord: 'limit', basePath },
    (_, operation) => !resourceTags.has(operation.tags?.[0] ?? ''),
  );
  // A resource with no names but English's (the webhooks) is served at the same paths in every vocabulary: shown once,
  // whichever vocabulary is chosen.
  const shared = (definition: ResourceDefinition): boolean =>
    table.languages.length > 1 &&
    table.languages.every(
      (language) => collectionPattern(definition, language) === collectionPattern(definition, 'en'),
    );
  const resourcesIn = (language: Language, definitions: readonly ResourceDefinition[]): string =>
    definitions
      .map((definition) => {
        const vocabulary = vocabularyOf(definition, language);
        const place = { document, language, limitWord: vocabulary.parameters.limit, basePath };
        return resourceHtml(place, vocabulary.collection, definition.singular);
      })
      .join('\n');
  const own = table.resources.filter((definition) => !shared(definition));
  const vocabularies = table.languages.map(
    (language) =>
      `<div data-vocabulary="${language}"${language === 'en' ? '' : ' hidden'}>${resourcesIn(language, own)}</div>`,
  );
  const common = table.resources.filter(shared);
  if (common.length > 0) vocabularies.push(`<div>${resourcesIn('en', common)}</div>`);
  return `
<section id="reference" aria-labelledby="reference-title">
<h2 id="reference-title">Reference</h2>
<p>Every operation, generated from <a href="${escapeHtml(basePath)}/v1/openapi.json">the OpenAPI document</a>. All need a token except
those marked open; each lists the status codes it can answer, linked to what they mean.</p>
<h3>Service</h3>
${service}
${vocabularies.join('\n')}
</section>`;
}
