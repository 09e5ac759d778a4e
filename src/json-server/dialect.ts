// json-server 0.17's dialect at the root, beside /v1 (docs/json-server.md: Serving json-server's dialect): its routes
// (plural, singular, nested, /db; in any case, as Express's) after its rewrite rules (rewrites.ts), a static directory,
// read-only and CORS as its defaults have them, JSONP and ETags as Express sends them (express-send.ts); each operation
// runs through the core's pipeline for the route under /v1 it stands for (CoreDoor: authentication, rate limit, store).

import type { IncomingMessage } from 'node:http';
import type { JsonServerOptions } from '../config/server-options.ts';
import type { RequestContext } from '../handlers/context.ts';
import type { Reply } from '../http/respond.ts';
import type { ResourceTable } from '../resources/definition.ts';
import { API_PREFIX } from '../routing/route-table.ts';
import { isNotFound, jsonAnswer, notFound } from './answers.ts';
import type { DialectCollection } from './collections.ts';
import { DialectCollections } from './collections.ts';
import type { CoreRouter } from './core-calls.ts';
import { CoreCalls, corePath } from './core-calls.ts';
import { parametersOf } from './list-filters.ts';
import { listRecords, readRecord, readSingular, wholeDatabase } from './reads.ts';
import { Rewrites } from './rewrites.ts';
import { StaticFiles } from './static-files.ts';
import { corsHeaders, optionsWithoutCors, preflight } from './cors.ts';
import { asExpressSends, asJsonp } from './express-send.ts';
import { createRecord, deleteRecord, nestedParent, updateRecord, writeSingular } from './writes.ts';

/** The core's pipeline for one request (server/dispatch.ts: runHandler), as the dialect reaches it. */
export interface CoreDoor {
  /**
   * Runs `handler` as the core runs `method` on `path` (under /v1): that route's authentication, the rate limit, the
   * store; a path or method the core does not serve is its 404 or 405.
   */
  run(method: string, path: string, handler: (context: RequestContext) => Promise<Reply>): Reply | Promise<Reply>;
}

/** Paths plainrest keeps at the root whatever the dialect serves. */
const PLAINREST_PATHS = new Set(['/healthz', '/readyz', API_PREFIX]);

export class JsonServerDialect {
  readonly #collections: DialectCollections;
  /** The collections by their names in lower case: Express's routes ignore case (`/POSTS/1` is `/posts/1`). */
  readonly #byLowerCase = new Map<string, DialectCollection>();
  readonly #router: CoreRouter;
  readonly #options: JsonServerOptions;
  readonly #rewrites: Rewrites;
  readonly #static: StaticFiles | undefined;
  /** BASE_PATH, which the URLs of Location and Link start with, as json-server's mounted router's (originalUrl). */
  readonly #basePath: string;

  constructor(table: ResourceTable, options: JsonServerOptions, router: CoreRouter, basePath = '') {
    this.#collections = new DialectCollections(table);
    for (const collection of this.#collections.all()) this.#byLowerCase.set(collection.name.toLowerCase(), collection);
    this.#router = router;
    this.#options = options;
    this.#basePath = basePath;
    this.#rewrites = new Rewrites(options.routes ?? {});
    this.#static = options.staticDir === undefined ? undefined : new StaticFiles(options.staticDir);
  }

  /** Whether `path` (without a base path) is the dialect's: all but /v1, the probes and the home page. */
  serves(path: string): boolean {
    if (PLAINREST_PATHS.has(path) || path.startsWith(`${API_PREFIX}/`)) return false;
    return path !== '/' || this.#static?.hasIndex() === true;
  }

  /** The answer to a request at one of the dialect's paths (`serves`). */
  async answer(req: IncomingMessage, path: string, queryString: string, door: CoreDoor): Promise<Reply> {
    const withCors = this.#options.cors !== false;
    const method = methodOf(req);
    if (method === 'OPTIONS') return withCors ? preflight(req) : optionsWithoutCors();
    // In json-server's order: its defaults (static files, read-only), then the rewrite rules, then the router.
    const file = this.#static === undefined ? undefined : await this.#static.answer(req, path);
    let reply: Reply;
    if (file !== undefined) reply = file;
    else if (this.#options.readOnly === true && method !== 'GET' && method !== 'HEAD')
      reply = { status: 403, body: 'Forbidden', contentType: 'text/plain; charset=utf-8' };
    else if (this.#options.routes !== undefined && path.toLowerCase() === '/__rules' && method === 'GET')
      reply = jsonAnswer(200, { ...this.#options.routes });
    else {
      const rewritten = this.#rewrites.apply(path, queryString);
      reply = await this.#route(req, method, rewritten.path, rewritten.queryString, door);
      // The router's answers go out through res.jsonp: a GET's with `callback` as JSONP (not a write's, by choice).
      const callback = new URLSearchParams(rewritten.queryString).get('callback');
      if ((method === 'GET' || method === 'HEAD') && callback !== null && callback !== '')
        reply = asJsonp(reply, callback);
    }
    reply = asExpressSends(req.method ?? 'GET', req.headers, reply);
    return withCors ? { ...reply, headers: { ...reply.headers, ...corsHeaders(req) } } : reply;
  }

  async #route(
    req: IncomingMessage,
    method: string,
    path: string,
    queryString: string,
    door: CoreDoor,
  ): Promise<Reply> {
    const steps = path
      .split('/')
      .filter((step) => step !== '')
      .map(decoded);
    const read = method === 'GET' || method === 'HEAD';
    let parameters: ReadonlyMap<string, readonly string[]> = parametersOf(queryString);
    // json-server's links and Location start from the URL as its router sees it (get-full-url.js), rewritten or not.
    const query = queryString === '' ? '' : `?${queryString}`;
    const fullUrl = `http://${req.headers.host ?? 'localhost'}${this.#basePath}${path}${query}`;
    if (steps.length === 1 && steps[0]?.toLowerCase() === 'db' && read)
      return this.#run(door, 'GET', API_PREFIX, (calls) => wholeDatabase(calls, this.#collections));
    let parent: { name: string; id: string } | undefined;
    if (steps.length === 3 && (read || method === 'POST')) {
      const name = steps[0] as string;
      // json-server names the filter after the path's word; a collection's own name where it is one in another case.
      parent = { name: this.#byLowerCase.get(name.toLowerCase())?.name ?? name, id: steps[1] as string };
      steps.splice(0, 2);
    }
    const collection = steps[0] === undefined ? undefined : this.#byLowerCase.get(steps[0].toLowerCase());
    if (collection === undefined) return notFound();
    const base = corePath(collection.definition.collection);
    const collections = this.#collections;
    if (collection.definition.singleton === true) {
      if (steps.length !== 1 || parent !== undefined) return notFound();
      if (read) return this.#run(door, 'GET', base, (calls) => readSingular(calls, collection));
      if (method === 'PUT' || method === 'PATCH' || method === 'POST')
        return this.#run(door, 'PUT', base, (calls) => writeSingular(calls, collection, method, fullUrl));
      return notFound();
    }
    if (parent !== undefined) {
      const nested = nestedParent(parent.name, collection);
      if (read) parameters = withParameter(parameters, nested.name, parent.id);
      else
        return this.#run(door, 'POST', base, (calls) =>
          createRecord(calls, collection, fullUrl, { nested, id: parent.id }),
        );
    }
    if (steps.length === 1) {
      if (read)
        return this.#run(door, 'GET', base, (calls) =>
          listRecords(calls, collections, collection, { parameters, fullUrl }),
        );
      if (method === 'POST') return this.#run(door, 'POST', base, (calls) => createRecord(calls, collection, fullUrl));
      return notFound();
    }
    if (steps.length !== 2) return notFound();
    const id = steps[1] as string;
    const item = corePath(collection.definition.collection, id);
    if (read)
      return this.#run(door, 'GET', item, (calls) => readRecord(calls, collections, collection, id, parameters));
    if (method === 'PUT' || method === 'PATCH')
      return this.#run(door, 'PUT', item, (calls) => updateRecord(calls, collection, id, method));
    if (method === 'DELETE')
      return this.#run(door, 'DELETE', item, (calls) => deleteRecord(calls, collections, collection, id));
    return notFound();
  }

  /** `operation` through the core's door for `method` on `path`; the core's 404 is json-server's. */
  async #run(
    door: CoreDoor,
    method: string,
    path: string,
    operation: (calls: CoreCalls) => Promise<Reply>,
  ): Promise<Reply> {
    try {
      return await door.run(method, path, (context) => operation(new CoreCalls(context, this.#router)));
    } catch (error) {
      if (isNotFound(error)) return notFound();
      throw error;
    }
  }
}

/** The method, or the one X-HTTP-Method-Override names on a POST (method-override, as json-server reads it). */
function methodOf(req: IncomingMessage): string {
  const method = req.method ?? 'GET';
  const override = req.headers['x-http-method-override'];
  return method === 'POST' && typeof override === 'string' && override !== '' ? override.toUpperCase() : method;
}

/** A path segment decoded, as express decodes its parameters; one that cannot be is kept as sent. */
function decoded(step: string): string {
  try {
    return decodeURIComponent(step);
  } catch {
    return step;
  }
}

/** `parameters` with `name` set to `value`, as json-server's nested route sets it (over one given). */
function withParameter(
  parameters: ReadonlyMap<string, readonly string[]>,
  name: string,
  value: string,
): Map<string, readonly string[]> {
  return new Map([...parameters, [name, [value]]]);
}
