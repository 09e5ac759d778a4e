// What an answer must be, by the OpenAPI document (README: The OpenAPI document), for openapi-conformance.test.ts:
// never a 5xx; a request the document allows never refused as malformed; a status the operation declares; a body
// valid, by Ajv (JSON Schema 2020-12, as OpenAPI 3.1 has it), against the schema declared for that status and media
// type, with no writeOnly member; the response headers the document requires present and valid.

import { Ajv2020 } from 'ajv/dist/2020.js';
import type { ErrorObject, ValidateFunction } from 'ajv';
import type { Answer, Document, Operation, PlannedRequest } from './conformance-requests.ts';
import { member } from './conformance-requests.ts';
import type { Json, Schema } from './schema-samples.ts';

/** The document's own address as Ajv knows it: every `$ref` (`#/components/…`) resolves inside it. */
const DOCUMENT_ID = 'openapi.json';

/** Refusals that call the request malformed: a query or header (400), its Accept (406), its body's media type (415). */
const MALFORMED = new Set([400, 406, 415]);

/**
 * Rules a JSON Schema cannot state, which the document states in words: a 422 naming only these is the document's
 * answer when the description of the field it names says so (a record that exists, a value given once, a time to come).
 */
const STATED_IN_WORDS: readonly { readonly code: RegExp; readonly words: RegExp }[] = [
  { code: /^unknown_[a-z_]+$/, words: /\bexisting\b/ },
  { code: /^duplicate_[a-z_]+$/, words: /\bonce\b|\bone item only\b/ },
  { code: /^in_the_past$/, words: /\bin the future\b/ },
  // A webhook's url: where it may be delivered, checked after resolving its name (docs/webhooks.md).
  {
    code: /^(forbidden_target|unresolvable_host|insecure_scheme|unsupported_scheme|credentials_in_url)$/,
    words: /\bresolving its name\b/,
  },
];

/** RFC 3339 §5.6 date-time, with a date that exists and a time of day (a leap second allowed). */
function isDateTime(text: string): boolean {
  const match = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-](\d{2}):(\d{2}))$/.exec(text);
  if (match === null || !isDate(match[1] as string)) return false;
  const [hour, minute, second] = [match[2], match[3], match[4]].map(Number) as [number, number, number];
  const offsetOk = match[7] === undefined || (Number(match[7]) <= 23 && Number(match[8]) <= 59);
  return hour <= 23 && minute <= 59 && second <= 60 && offsetOk;
}

/** RFC 3339 §5.6 full-date: a day its month has (Gregorian, leap years included). */
function isDate(text: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(text);
  if (match === null) return false;
  const [year, month, day] = [match[1], match[2], match[3]].map(Number) as [number, number, number];
  if (month < 1 || month > 12 || day < 1) return false;
  const leap = (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0;
  const days = [31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] as number;
  return day <= days;
}

/** Ajv for the document: its formats, and (for answers) writeOnly members refused (OpenAPI 3.1 §4.8.25.2). */
function documentValidator(doc: Document, answers: boolean): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, inlineRefs: false });
  ajv.addFormat('date-time', isDateTime);
  ajv.addFormat('date', isDate);
  ajv.addFormat('email', /^[^\s@]+@[^\s@]+$/);
  ajv.addFormat('uri', /^[A-Za-z][A-Za-z0-9+.-]*:[^\s]*$/);
  ajv.addFormat('uri-reference', /^[^\s]*$/);
  ajv.addFormat('int32', { type: 'number', validate: (n: number) => Number.isInteger(n) && Math.abs(n) <= 2 ** 31 });
  ajv.addFormat('int64', { type: 'number', validate: (n: number) => Number.isInteger(n) });
  if (answers) {
    ajv.removeKeyword('writeOnly');
    ajv.addKeyword({ keyword: 'writeOnly', schemaType: 'boolean', validate: (writeOnly: boolean) => !writeOnly });
  }
  ajv.addSchema(doc, DOCUMENT_ID);
  return ajv;
}

/** A JSON pointer's tokens as a URI fragment (RFC 6901 §5). */
function fragment(tokens: readonly string[]): string {
  return tokens.map((token) => `/${encodeURIComponent(token.replaceAll('~', '~0').replaceAll('/', '~1'))}`).join('');
}

function describeErrors(errors: readonly ErrorObject[] | null | undefined): string[] {
  return (errors ?? []).map((error) => {
    const where = error.instancePath === '' ? '(the body)' : error.instancePath;
    if (error.keyword === 'writeOnly') return `${where}: a writeOnly member in an answer`;
    return `${where}: ${error.message ?? error.keyword} ${JSON.stringify(error.params)}`;
  });
}

/** The checks, for one document. */
export class Conformance {
  readonly #doc: Document;
  readonly #answers: Ajv2020;
  readonly #requests: Ajv2020;
  readonly #compiled = new Map<string, ValidateFunction>();
  /** The same, by where the schema is: a place met again needs neither its text written out nor a look-up by it. */
  readonly #compiledAt = new Map<string, ValidateFunction>();

  constructor(doc: Document) {
    if (!String(doc['openapi']).startsWith('3.1.'))
      throw new Error(`OpenAPI ${String(doc['openapi'])}: these checks read JSON Schema 2020-12 (3.1), no nullable`);
    this.#doc = doc;
    this.#answers = documentValidator(doc, true);
    this.#requests = documentValidator(doc, false);
  }

  /** Follows `$ref`s from the node at `tokens`, giving the node and where it is. */
  #resolve(tokens: readonly string[]): { node: Document; tokens: readonly string[] } {
    let where = tokens;
    for (;;) {
      const node = where.reduce((found: Document, token) => member(found, token), this.#doc);
      if (typeof node['$ref'] !== 'string') return { node, tokens: where };
      where = node['$ref']
        .replace(/^#\//, '')
        .split('/')
        .map((token) => token.replaceAll('~1', '/').replaceAll('~0', '~'));
    }
  }

  #validate(ajv: Ajv2020, tokens: readonly string[], value: unknown): string[] {
    const kind = ajv === this.#answers ? 'answer' : 'request';
    const place = `${kind} ${fragment(tokens)}`;
    let validate = this.#compiledAt.get(place);
    if (validate === undefined) {
      // Compiled once per schema text: hundreds of parameters share a few schemas, and a `$ref` means the same anywhere.
      const node = tokens.reduce((found: unknown, token) => (found as Record<string, unknown>)[token], this.#doc);
      const key = `${kind} ${JSON.stringify(node)}`;
      validate = this.#compiled.get(key);
      if (validate === undefined) {
        validate = ajv.getSchema(`${DOCUMENT_ID}#${fragment(tokens)}`);
        if (validate === undefined) throw new Error(`no schema at ${fragment(tokens)}`);
        this.#compiled.set(key, validate);
      }
      this.#compiledAt.set(place, validate);
    }
    return validate(value) ? [] : describeErrors(validate.errors);
  }

  /** Problems of a value the run made for a request (a sampler's mistake, not the server's), against its schema. */
  requestProblems(schemaTokens: readonly string[], value: Json): string[] {
    return this.#validate(this.#requests, schemaTokens, value);
  }

  /** Every way `answer` breaks the document, for a request the document allows. */
  answerProblems(operation: Operation, request: PlannedRequest, answer: Answer): string[] {
    const problems: string[] = [];
    const { status } = answer;
    if (status >= 500) problems.push(`a ${status}: the server failed on a request the document allows`);
    // A batch's refusal naming one of its operations (README: Batches) is that operation's answer, by the rules of its
    // own path (described at that path) and of the batch's shape the description states in words: not the schema's.
    const problem = parsed(answer.text);
    const batchOperation =
      status < 500 &&
      typeof problem === 'object' &&
      problem !== null &&
      !Array.isArray(problem) &&
      typeof problem['operation'] === 'number';
    if (MALFORMED.has(status) && !batchOperation)
      problems.push(`refused as malformed (${status}), but the document allows the request`);
    if (status === 422 && !batchOperation) problems.push(...this.#refusedBody(request, answer));
    const declared = Object.keys(member(operation.object, 'responses'));
    if (!declared.includes(String(status))) {
      problems.push(`${status} is not a status the operation declares (${declared.join(', ')})`);
      return problems;
    }
    const at = this.#resolve(['paths', operation.template, operation.method, 'responses', String(status)]);
    problems.push(...this.#headerProblems(at, answer));
    problems.push(...this.#bodyProblems(operation, at, answer));
    return problems;
  }

  /** A 422 to a body the document allows is the document's answer only for a rule it states in words. */
  #refusedBody(request: PlannedRequest, answer: Answer): string[] {
    const problem = parsed(answer.text);
    const code = typeof problem === 'object' && problem !== null && !Array.isArray(problem) ? problem['code'] : '';
    if (code === 'idempotency_key_reused' && request.reusedIdempotencyKey) return [];
    const errors = typeof problem === 'object' && problem !== null && !Array.isArray(problem) ? problem['errors'] : [];
    const stated = (error: Json): boolean => {
      if (typeof error !== 'object' || error === null || Array.isArray(error)) return false;
      const rule = STATED_IN_WORDS.find((candidate) => candidate.code.test(String(error['code'])));
      if (rule === undefined || request.bodySchema === undefined) return false;
      return rule.words.test(this.#descriptionAt(request.bodySchema, String(error['field'])));
    };
    if (Array.isArray(errors) && errors.length > 0 && errors.every(stated)) return [];
    return [`refused a body the document allows (422 ${String(code)}): ${JSON.stringify(errors)}`];
  }

  /** The description of the body's member a 422 names (`items[0].product_id`), and its parents'. */
  #descriptionAt(schema: Schema, field: string): string {
    let node: Document = schema;
    const descriptions: string[] = [];
    for (const part of field.split(/\.|\[\d+\]/).filter((token) => token !== '')) {
      node = this.#dereferenced(node);
      if (node['type'] === 'array' || (Array.isArray(node['type']) && node['type'].includes('array')))
        node = this.#dereferenced(member(node, 'items'));
      node = this.#dereferenced(member(member(node, 'properties'), part));
      if (typeof node['description'] === 'string') descriptions.push(node['description']);
    }
    return descriptions.join(' ');
  }

  #dereferenced(node: Document): Document {
    if (typeof node['$ref'] !== 'string') return node;
    return this.#resolve(node['$ref'].replace(/^#\//, '').split('/')).node;
  }

  /** Each header the answer's description requires is sent; each documented one sent has a value its schema allows. */
  #headerProblems(response: { node: Document; tokens: readonly string[] }, answer: Answer): string[] {
    const problems: string[] = [];
    for (const name of Object.keys(member(response.node, 'headers'))) {
      const header = this.#resolve([...response.tokens, 'headers', name]);
      const value = answer.headers[name.toLowerCase()];
      if (value === undefined) {
        if (header.node['required'] === true) problems.push(`the required header ${name} is missing`);
        continue;
      }
      const text = Array.isArray(value) ? value.join(', ') : value;
      // A header is text; an integer's schema is checked against the digits' value.
      const typed = member(header.node, 'schema')['type'] === 'integer' && /^[0-9]+$/.test(text) ? Number(text) : text;
      const errors = this.#validate(this.#answers, [...header.tokens, 'schema'], typed);
      if (errors.length > 0) problems.push(`header ${name}: ${text}: ${errors.join('; ')}`);
    }
    return problems;
  }

  #bodyProblems(operation: Operation, at: { node: Document; tokens: readonly string[] }, answer: Answer): string[] {
    const content = member(at.node, 'content');
    const declaredTypes = Object.keys(content);
    const headless = operation.method === 'head';
    if (answer.text === '' && !answer.streamed) {
      if (!headless && declaredTypes.length > 0 && answer.status !== 204 && answer.status !== 304)
        return [`no body, where the document declares ${declaredTypes.join(', ')}`];
      return [];
    }
    if (headless) return ['a body in an answer to HEAD (RFC 9110 §9.3.2)'];
    if (!declaredTypes.includes(answer.mediaType))
      return [
        `Content-Type ${answer.mediaType || '(none)'} is not declared for ${answer.status} ` +
          `(${declaredTypes.join(', ') || 'no body'})`,
      ];
    if (answer.streamed) return [];
    const schemaTokens = [...at.tokens, 'content', answer.mediaType, 'schema'];
    if (!answer.mediaType.endsWith('json')) return this.#validate(this.#answers, schemaTokens, answer.text);
    const body = parsed(answer.text);
    if (body === undefined) return [`${answer.mediaType} that is not JSON: ${answer.text.slice(0, 200)}`];
    return this.#validate(this.#answers, schemaTokens, body);
  }
}

function parsed(text: string): Json | undefined {
  try {
    return JSON.parse(text) as Json;
  } catch {
    return undefined;
  }
}
