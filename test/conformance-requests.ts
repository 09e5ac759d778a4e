// Requests made from the OpenAPI document alone, for openapi-conformance.test.ts: each operation's path parameters
// (ids of records that exist, from list answers and Location headers, and now and then ids that do not), its query
// and header parameters and its body drawn from their schemas (schema-samples.ts), an Accept the operation answers
// with; and a client on node:http that reads an event stream's head only (README: Events).

import { Agent, request as httpRequest } from 'node:http';
import type { Json, Schema, Sampling } from './schema-samples.ts';
import { pick, sample } from './schema-samples.ts';

/** A part of the OpenAPI document: an object whose members are read with `member` and `members`. */
export type Document = { readonly [member: string]: unknown };

/** The object at `key` (an empty one when there is none). */
export function member(node: Document, key: string): Document {
  const value = node[key];
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Document) : {};
}

/** The objects of the array at `key`. */
export function members(node: Document, key: string): Document[] {
  const value = node[key];
  return Array.isArray(value) ? (value as Document[]) : [];
}

export const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options'] as const;

export interface Operation {
  readonly template: string;
  readonly method: (typeof METHODS)[number];
  readonly id: string;
  readonly object: Document;
  /** The path item's parameters and the operation's own. */
  readonly parameters: readonly Document[];
  /** Where each parameter's schema is in the document (JSON pointer tokens), in the same order. */
  readonly parameterSchemas: readonly (readonly string[])[];
}

/** Every operation of the document, in its order. */
export function operationsOf(doc: Document): Operation[] {
  const operations: Operation[] = [];
  for (const [template, item] of Object.entries(member(doc, 'paths'))) {
    for (const method of METHODS) {
      const object = member(item as Document, method);
      if (Object.keys(object).length === 0) continue;
      const shared = members(item as Document, 'parameters');
      const parameters = [...shared, ...members(object, 'parameters')];
      const parameterSchemas = parameters.map((_, index) =>
        index < shared.length
          ? ['paths', template, 'parameters', String(index), 'schema']
          : ['paths', template, method, 'parameters', String(index - shared.length), 'schema'],
      );
      operations.push({ template, method, id: String(object['operationId']), object, parameters, parameterSchemas });
    }
  }
  return operations;
}

/** A template's path parameters' names, in order: `user_id/order_id` for `/v1/users/{user_id}/orders/{order_id}`. */
export function signatureOf(template: string): string {
  return [...template.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]).join('/');
}

/** Who sends a request: its bearer token (none: anonymous), the user it acts as, the API key it is. */
export interface Caller {
  readonly name: string;
  readonly token: string | undefined;
  readonly userId: number | undefined;
  readonly keyId: number | undefined;
  readonly administrator: boolean;
}

/**
 * The records known to exist, by the path parameters that name them (the same ids under every vocabulary's paths):
 * `user_id/order_id` → [[1, 3], [2, 4]]. Filled from list answers and Location headers, emptied by 204s to DELETE.
 */
export class RecordPool {
  readonly #tuples = new Map<string, number[][]>();
  readonly #gone: number[] = [];
  readonly #itemTemplates: readonly string[];

  constructor(doc: Document) {
    this.#itemTemplates = Object.keys(member(doc, 'paths')).filter((template) => template.endsWith('}'));
  }

  /** Notes the record a concrete path names (a Location, or a list's item), when a documented item path matches it. */
  add(path: string): void {
    const found = this.#match(path);
    if (found === undefined) return;
    const tuples = this.#tuples.get(found.signature) ?? [];
    if (!tuples.some((tuple) => sameIds(tuple, found.ids))) tuples.push(found.ids);
    this.#tuples.set(found.signature, tuples);
  }

  /** Forgets the record a path names and every record under it (a deleted user's orders and keys). */
  remove(path: string): void {
    const found = this.#match(path);
    if (found === undefined) return;
    const prefix = found.signature.split('/');
    for (const [signature, tuples] of this.#tuples) {
      if (signature.split('/').slice(0, prefix.length).join('/') !== found.signature) continue;
      this.#tuples.set(
        signature,
        tuples.filter((tuple) => !sameIds(tuple.slice(0, found.ids.length), found.ids)),
      );
    }
    this.#gone.push(found.ids.at(-1) as number);
  }

  existing(signature: string): readonly number[][] {
    return this.#tuples.get(signature) ?? [];
  }

  /** The ids of the records a path parameter names (`product_id`), wherever they sit. */
  idsNamedBy(parameter: string): number[] {
    const ids: number[] = [];
    for (const [signature, tuples] of this.#tuples) {
      const names = signature.split('/');
      if (names.at(-1) === parameter) ids.push(...tuples.map((tuple) => tuple.at(-1) as number));
    }
    return ids;
  }

  /** Ids of records deleted during the run: known not to exist. */
  get gone(): readonly number[] {
    return this.#gone;
  }

  #match(path: string): { signature: string; ids: number[] } | undefined {
    const segments = path.split('?')[0]?.split('/') ?? [];
    for (const template of this.#itemTemplates) {
      const parts = template.split('/');
      if (parts.length !== segments.length) continue;
      const ids: number[] = [];
      const fits = parts.every((part, index) => {
        const segment = segments[index] as string;
        if (!part.startsWith('{')) return part === segment;
        if (!/^[1-9][0-9]*$/.test(segment)) return false;
        ids.push(Number(segment));
        return true;
      });
      if (fits) return { signature: signatureOf(template), ids };
    }
    return undefined;
  }
}

function sameIds(one: readonly number[], other: readonly number[]): boolean {
  return one.length === other.length && one.every((id, index) => id === other[index]);
}

/** A request as planned: what is sent, and what the checks need to know of it. */
export interface PlannedRequest {
  readonly method: string;
  readonly target: string;
  readonly headers: Record<string, string>;
  readonly body: string | undefined;
  /** The body's media type and its schema in the document, when there is a body. */
  readonly bodySchema: Schema | undefined;
  readonly bodyValue: Json | undefined;
  /** An Idempotency-Key this run already sent (a 422 or a replay is then the document's answer). */
  readonly reusedIdempotencyKey: boolean;
  /** Each value drawn from a schema, and where that schema is: checked before the request is sent. */
  readonly samples: readonly { readonly at: readonly string[]; readonly value: Json }[];
}

/** What a run remembers between requests: ETags seen per path, Idempotency-Keys sent. */
export interface RunMemory {
  readonly entityTags: Map<string, string>;
  readonly idempotencyKeys: Set<string>;
}

/** What makes one request of an operation: the seeded generator, the document, the records that exist. */
export interface Planning {
  readonly random: () => number;
  readonly doc: Document;
  readonly pool: RecordPool;
  readonly caller: Caller;
  readonly memory: RunMemory;
}

/** A local `$ref` followed. */
export function resolved(doc: Document, node: Document): Document {
  let current = node;
  while (typeof current['$ref'] === 'string') {
    current = current['$ref']
      .slice(2)
      .split('/')
      .reduce((found: Document, part) => member(found, part.replaceAll('~1', '/').replaceAll('~0', '~')), doc);
  }
  return current;
}

/** One request the document allows for `operation`, as `planning.caller` would send it. */
export function planRequest(operation: Operation, planning: Planning): PlannedRequest {
  const { random, doc, memory } = planning;
  const path = concretePath(operation, planning);
  const sampling = samplingFor(planning, true);
  const query = new URLSearchParams();
  const commaSeparated: string[] = [];
  const headers: Record<string, string> = {};
  let reusedIdempotencyKey = false;
  const samples: { at: readonly string[]; value: Json }[] = [];
  const accept = acceptFor(operation, doc, random);
  // About two optional parameters a request, however many there are: a list with every filter finds nothing.
  const optional = operation.parameters.filter((parameter) => parameter['required'] !== true).length;
  const included = Math.min(0.35, 2 / Math.max(optional, 1));
  operation.parameters.forEach((parameter, index) => {
    if (parameter['in'] === 'path') return;
    if (parameter['required'] !== true && random() >= included) return;
    // A parameter "the list only" takes (a change feed's page) is left out of a request for the stream.
    if (accept === 'text/event-stream' && /\bthe list only\b/.test(String(parameter['description']))) return;
    // The parameter's description beside its schema: what it states in words ("each once") is a rule too.
    const schema = { description: parameter['description'], ...member(parameter, 'schema') };
    const at = operation.parameterSchemas[index] as readonly string[];
    const name = String(parameter['name']);
    if (parameter['in'] === 'query') {
      // Now and then the document's example, which finds records (a filter of random text finds none).
      const example = parameter['example'] as Json | undefined;
      const value = example !== undefined && random() < 0.2 ? example : sample(schema, sampling);
      samples.push({ at, value });
      // An array in OpenAPI's form style, not exploded: `name=a,b`, each value percent-encoded, its commas too.
      if (Array.isArray(value) && parameter['explode'] === false)
        commaSeparated.push(
          `${encodeURIComponent(name)}=${value.map((item) => encodeURIComponent(queryValue(item, random))).join(',')}`,
        );
      else query.append(name, queryValue(value, random));
    }
    if (parameter['in'] !== 'header') return;
    const value = headerValue(name, schema, path, planning);
    samples.push({ at, value });
    if (name === 'Idempotency-Key') {
      reusedIdempotencyKey = memory.idempotencyKeys.has(value);
      memory.idempotencyKeys.add(value);
    }
    headers[name] = value;
  });
  if (accept !== undefined) headers['Accept'] = accept;
  if (planning.caller.token !== undefined) headers['Authorization'] = `Bearer ${planning.caller.token}`;

  const requestBody = member(operation.object, 'requestBody');
  const content = member(requestBody, 'content');
  let body: string | undefined;
  let bodySchema: Schema | undefined;
  let bodyValue: Json | undefined;
  if (Object.keys(content).length > 0 && (requestBody['required'] === true || random() < 0.5)) {
    const mediaType = pick(Object.keys(content), random);
    const media = member(content, mediaType);
    bodySchema = member(media, 'schema');
    // Now and then the document's own example, the body its authors wrote (and its tools send).
    bodyValue =
      media['example'] !== undefined && random() < 0.15 ? (media['example'] as Json) : sample(bodySchema, sampling);
    samples.push({
      at: ['paths', operation.template, operation.method, 'requestBody', 'content', mediaType, 'schema'],
      value: bodyValue,
    });
    body = JSON.stringify(bodyValue);
    headers['Content-Type'] = mediaType;
  }
  const search = [query.toString(), ...commaSeparated].filter((part) => part !== '').join('&');
  return {
    method: operation.method.toUpperCase(),
    target: search === '' ? path : `${path}?${search}`,
    headers,
    body,
    bodySchema,
    bodyValue,
    reusedIdempotencyKey,
    samples,
  };
}

/** Sampling for this run: an integer whose description names an existing record is, mostly, one that exists. */
export function samplingFor(planning: Planning, request: boolean): Sampling {
  const { random, doc, pool } = planning;
  return {
    random,
    request,
    resolve: (reference) => resolved(doc, { $ref: reference }),
    existingId: (schema) => {
      const named = /\bexisting (\w+)/.exec(typeof schema['description'] === 'string' ? schema['description'] : '');
      if (named === null || random() < 0.1) return undefined;
      const ids = pool.idsNamedBy(`${named[1]}_id`);
      return ids.length === 0 ? undefined : pick(ids, random);
    },
  };
}

/**
 * The path with its parameters: mostly a record that exists (half the time, where the path starts at a user, the
 * caller's own), else one id replaced by one that does not (deleted in this run, or never made). A write never
 * names the caller's own user or key when it would end the caller's run (deleting itself; an administrator
 * demoting itself), so that every caller is the same caller from its first request to its last.
 */
function concretePath(operation: Operation, planning: Planning): string {
  const { random, pool, caller } = planning;
  const names = signatureOf(operation.template);
  if (names === '') return operation.template;
  const parameterNames = names.split('/');
  const own = caller.userId;
  const writes = operation.method !== 'get' && operation.method !== 'head' && operation.method !== 'options';
  const spared = (tuple: readonly number[]): boolean => {
    if (names === 'user_id' && tuple[0] === own && (operation.method === 'delete' || (writes && caller.administrator)))
      return true;
    return names === 'user_id/key_id' && operation.method === 'delete' && tuple[1] === caller.keyId;
  };
  let candidates = pool.existing(names).filter((tuple) => !spared(tuple));
  if (own !== undefined && parameterNames[0] === 'user_id' && random() < 0.5) {
    const owned = candidates.filter((tuple) => tuple[0] === own);
    if (owned.length > 0) candidates = owned;
  }
  let ids: number[];
  if (candidates.length > 0 && random() < 0.85) ids = [...pick(candidates, random)];
  else {
    ids = candidates.length > 0 ? [...pick(candidates, random)] : parameterNames.map(() => 1);
    const replaced = Math.floor(random() * ids.length);
    const parameter = operation.parameters.find((candidate) => candidate['name'] === parameterNames[replaced]);
    ids[replaced] = absentId(member(parameter ?? {}, 'schema'), pool, parameterNames[replaced] as string, random);
  }
  return operation.template.replace(/\{([^}]+)\}/g, (_, name: string) => String(ids[parameterNames.indexOf(name)]));
}

/** An id the path parameter's schema allows that names no record: a deleted one, or one never made. */
function absentId(schema: Schema, pool: RecordPool, parameter: string, random: () => number): number {
  const taken = new Set(pool.idsNamedBy(parameter));
  const gone = pool.gone.filter((id) => !taken.has(id));
  if (gone.length > 0 && random() < 0.3) return pick(gone, random);
  for (;;) {
    const id = sample(schema, { random, request: true, resolve: () => ({}) }) as number;
    if (!taken.has(id)) return id;
  }
}

/** A query value as a client writes it: a number sometimes in exponent form (a JSON number, RFC 8259 §6). */
function queryValue(value: Json, random: () => number): string {
  if (typeof value === 'number' && value !== 0 && random() < 0.25) return value.toExponential().replace('e+', 'e');
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** Printable ASCII without the space and the quote: what an entity-tag's opaque part may hold (RFC 9110 §8.8.3). */
const ETAG_CHARACTERS = [
  ...'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_!#$%&()*+,./:;<=>?@[]^`{|}~',
];

/**
 * A header parameter's value. A condition (If-Match, If-None-Match: a string, RFC 9110 §13.1.1–2) is an entity tag
 * this run saw for the path, `*`, or another tag; anything else is drawn from its schema.
 */
function headerValue(name: string, schema: Schema, path: string, planning: Planning): string {
  const { random } = planning;
  if (name === 'If-Match' || name === 'If-None-Match') {
    const seen = planning.memory.entityTags.get(path);
    const roll = random();
    if (seen !== undefined && roll < 0.5) return seen;
    if (roll < 0.65) return '*';
    const opaque = Array.from({ length: 1 + Math.floor(random() * 20) }, () => pick(ETAG_CHARACTERS, random)).join('');
    return random() < 0.3 ? `W/"${opaque}"` : `"${opaque}"`;
  }
  return String(sample(schema, samplingFor(planning, true)));
}

/** A media type the operation's success answers in (mostly), or none: the server's default. */
function acceptFor(operation: Operation, doc: Document, random: () => number): string | undefined {
  const types = new Set<string>();
  for (const [status, answer] of Object.entries(member(operation.object, 'responses'))) {
    if (!status.startsWith('2')) continue;
    for (const mediaType of Object.keys(member(resolved(doc, answer as Document), 'content'))) types.add(mediaType);
  }
  if (types.size === 0 || random() < 0.15) return undefined;
  return pick([...types], random);
}

/** An answer: its status, headers (lower-case names), media type and text; an event stream's head only. */
export interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly mediaType: string;
  readonly text: string;
  readonly streamed: boolean;
}

/** A client of one run: its own keep-alive connections, closed at its end. */
export class Client {
  readonly #origin: string;
  readonly #agent = new Agent({ keepAlive: true, maxSockets: 4 });

  constructor(origin: string) {
    this.#origin = origin;
  }

  /** Sends a planned request; an answer of `text/event-stream` is read up to its head and then dropped. */
  send(planned: PlannedRequest): Promise<Answer> {
    return new Promise((resolve, reject) => {
      const outgoing = httpRequest(`${this.#origin}${planned.target}`, {
        method: planned.method,
        headers: {
          ...planned.headers,
          ...(planned.body === undefined ? {} : { 'Content-Length': String(Buffer.byteLength(planned.body)) }),
        },
        agent: this.#agent,
      });
      outgoing.once('error', reject);
      outgoing.once('response', (response) => {
        const mediaType = (response.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
        const answer = (text: string, streamed: boolean): Answer => ({
          status: response.statusCode ?? 0,
          headers: response.headers,
          mediaType,
          text,
          streamed,
        });
        if (mediaType === 'text/event-stream') {
          // A stream has no end (README: Events): its head is what can be checked.
          response.destroy();
          resolve(answer('', true));
          return;
        }
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.once('error', reject);
        response.once('end', () => resolve(answer(Buffer.concat(chunks).toString('utf8'), false)));
      });
      outgoing.end(planned.body);
    });
  }

  close(): void {
    this.#agent.destroy();
  }
}
