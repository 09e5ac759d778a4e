// POST /v1/batches (README: Batches; docs/batches.md): several writes answered together, all or none. Each operation
// runs its own path's handler with the caller's token, on the data as the operations before it left it
// (store/pending-changes.ts); then every change is committed in one write, each decision made again in it on the data
// as it is then. The first refusal is the batch's answer, naming its operation; nothing is then written.

import type { IncomingMessage } from 'node:http';
import { HttpError, inOperation } from '../errors/errors.ts';
import { giveJsonBody, JSON_MEDIA_TYPES, readJsonBody } from '../http/body.ts';
import type { IdempotentRequest } from '../http/idempotency.ts';
import { rejectQueryParameters } from '../http/record-query.ts';
import type { Reply } from '../http/respond.ts';
import type { JsonObject } from '../records/json.ts';
import type { ResourceTable } from '../resources/definition.ts';
import { PendingChanges } from '../store/pending-changes.ts';
import type { Decision, StoredCollection } from '../store/store.ts';
import { NO_PLAN } from '../store/store.ts';
import type { BatchOperation } from './batch-operations.ts';
import { parseBatch, pathReferences, resolvedBody, resolvedPath } from './batch-operations.ts';
import type { RequestContext } from './context.ts';
import type { RecordId } from '../records/record-id.ts';

export type OperationHandler = (context: RequestContext) => Reply | Promise<Reply>;

/** The resources' routes, as the server's router finds them (server/routes.ts): what an operation may address. */
export interface OperationRouter {
  match(path: string): { readonly value: OperationEndpoint; readonly ids: readonly RecordId[] } | undefined;
}

/**
 * A route's handlers by method, the collections of the records its path's ids name, and the ids its path implies
 * without holding them (a singleton's).
 */
export interface OperationEndpoint {
  readonly handlers: ReadonlyMap<string, OperationHandler>;
  readonly pathCollections: readonly string[];
  readonly impliedIds?: readonly RecordId[];
}

/** Reads the batch, checks it whole (422), then runs it once unless its Idempotency-Key replays an earlier answer. */
export async function runBatch(
  context: RequestContext,
  table: ResourceTable,
  router: OperationRouter,
  batchPath: string,
): Promise<Reply> {
  rejectQueryParameters(context.queryString);
  const body = await readJsonBody(context.req, JSON_MEDIA_TYPES, context.services.bodyLimits);
  const { basePath } = context.services.config;
  const operations = parseBatch(body, { basePath, batchPath }, (path) => {
    const handlers = router.match(path)?.value.handlers;
    return handlers === undefined ? undefined : [...handlers.keys()].filter((method) => method !== 'GET');
  });
  const { idempotencyKeys } = context.services;
  const header = context.req.headers['idempotency-key'];
  const keyed = idempotencyKeys.keyedRequest(
    Array.isArray(header) ? header.join(', ') : header,
    `user ${context.actor?.id ?? ''}`,
    context.path,
    body,
  );
  const batch = new Batch(context, table, router, operations);
  if (keyed === undefined) return batch.run(undefined);
  const replay = await context.store.read(() => idempotencyKeys.replayOrBegin(keyed, context.store));
  if (replay !== undefined) return replay;
  try {
    return await batch.run(keyed);
  } finally {
    idempotencyKeys.finish(keyed);
  }
}

class Batch {
  readonly #context: RequestContext;
  readonly #router: OperationRouter;
  readonly #operations: readonly BatchOperation[];
  readonly #pending: PendingChanges;

  constructor(
    context: RequestContext,
    table: ResourceTable,
    router: OperationRouter,
    operations: readonly BatchOperation[],
  ) {
    this.#context = context;
    this.#router = router;
    this.#operations = operations;
    // A new id from a request of its own: a store's request may take one id per collection (PostgreSQL's does).
    const { store } = context.services;
    const reserve = async (collection: StoredCollection): Promise<number> =>
      await store.serve(NO_PLAN, (own) => own.read(() => own.allocateId(collection)));
    this.#pending = new PendingChanges(context.store, table, reserve);
  }

  /** Every operation in order on the pending changes, then all of them committed together; the 200 with the results. */
  async run(keyed: IdempotentRequest | undefined): Promise<Reply> {
    const replies: Reply[] = [];
    for (let index = 0; index < this.#operations.length; index++) {
      this.#pending.beginOperation(index);
      replies.push(await this.#rehearse(index));
    }
    if (keyed !== undefined) {
      const secret = replies.findIndex((reply) => reply.headers?.['Cache-Control'] === 'no-store');
      if (secret !== -1) {
        const refusal = new HttpError(
          'idempotency_key_not_accepted',
          'Idempotency-Key is not accepted for this batch: the saved answer would keep the secret this operation makes',
        );
        throw inOperation(refusal, secret);
      }
    }
    const { store, services } = this.#context;
    return store.write((): Decision<Reply> => {
      const replay = keyed === undefined ? undefined : services.idempotencyKeys.savedAnswer(keyed, store);
      if (replay !== undefined) return { changes: [], result: replay };
      const { changes, results } = this.#pending.decideAgain();
      // An operation that wrote answers what its write decided now; one that did not, what it answered before.
      const reply = batchReply(replies.map((first, index) => (results.get(index) as Reply | undefined) ?? first));
      if (keyed === undefined) return { changes, result: reply };
      return { changes: [...changes, ...services.idempotencyKeys.changesToSave(keyed, reply, store)], result: reply };
    });
  }

  /**
   * Each `$n.id` in operation `index`'s path names a record of the collection its place there takes: a user's id where
   * the path takes an order's would reach another record than the one meant (422 invalid_reference).
   */
  #requireReferencedCollections(index: number, pathCollections: readonly string[]): void {
    const operation = this.#operations[index] as BatchOperation;
    for (const { operation: named, idIndex } of pathReferences(operation.path)) {
      const made = this.#pending.createdBy(named)?.collection;
      const wanted = pathCollections[idIndex];
      if (made === wanted) continue;
      const field = `operations[${index}].path`;
      const message = `$${named}.id is an id of ${made ?? 'nothing'}, where the path takes one of ${wanted ?? 'none'}`;
      const refusal = new HttpError('validation_failed', `operation ${index}'s path names the wrong record`, {
        errors: [{ field, code: 'invalid_reference', message }],
      });
      throw inOperation(refusal, index);
    }
  }

  /** Operation `index` run by its own handler on the pending changes: its answer, or its refusal naming it. */
  async #rehearse(index: number): Promise<Reply> {
    const operation = this.#operations[index] as BatchOperation;
    const createdId = (named: number): RecordId => {
      const created = this.#pending.createdBy(named);
      if (created === undefined) throw new Error(`operation ${named} of the batch created no record`);
      return created.id;
    };
    const path = resolvedPath(operation.path, createdId);
    const query = path.indexOf('?');
    const routePath = query === -1 ? path : path.slice(0, query);
    const match = this.#router.match(routePath);
    const handler = match?.value.handlers.get(operation.method);
    // parseBatch found the route with any id in place of each reference: a real id finds it too.
    if (match === undefined || handler === undefined) throw new Error(`no route for ${operation.method} ${path}`);
    this.#requireReferencedCollections(index, match.value.pathCollections);
    const body = operation.body === undefined ? undefined : (resolvedBody(operation.body, createdId) as JsonObject);
    const context = this.#context;
    const own: RequestContext = {
      req: operationRequest(context.req, operation, body),
      method: operation.method,
      path: context.services.config.basePath + routePath,
      queryString: query === -1 ? '' : path.slice(query + 1),
      requestId: context.requestId,
      ids: match.value.impliedIds ?? match.ids,
      actor: context.actor,
      store: this.#pending,
      services: context.services,
      valuesToRedact: context.valuesToRedact,
    };
    let reply: Reply;
    try {
      reply = await this.#pending.read(() => handler(own));
    } catch (error) {
      if (error instanceof HttpError) throw inOperation(error, index);
      throw error;
    }
    const written = this.#pending.firstResultOf(index);
    // The answer given at the commit is its write's result: a handler answering anything else cannot be batched.
    if (written !== undefined && written !== reply)
      throw new Error(`${operation.method} ${routePath} answers other than its write's result: it cannot be batched`);
    return reply;
  }
}

/**
 * The request an operation's handler reads: the batch's, with the operation's method and headers (its preconditions)
 * and its body already read (http/body.ts: giveJsonBody); no body leaves it without one (400 body_required).
 */
function operationRequest(
  req: IncomingMessage,
  operation: BatchOperation,
  body: JsonObject | undefined,
): IncomingMessage {
  const own = Object.create(req, {
    method: { value: operation.method },
    headers: { value: { ...operation.headers } },
  }) as IncomingMessage;
  if (body !== undefined) giveJsonBody(own, body);
  return own;
}

/**
 * 200 with each operation's status, its Location and ETag, and its body (README: Batches); an answer that carries a
 * secret (an API key's) makes the whole answer one no cache keeps (RFC 9111 §5.2.2.5).
 */
function batchReply(replies: readonly Reply[]): Reply {
  const results = replies.map((reply) => {
    const headers: Record<string, string> = {};
    const location = reply.headers?.['Location'];
    const etag = reply.headers?.['ETag'];
    if (location !== undefined) headers['Location'] = location;
    if (etag !== undefined) headers['ETag'] = etag;
    const body = reply.body === undefined ? '' : reply.body.toString();
    // Each body is already JSON text: written in as it is.
    return (
      `{"status":${reply.status}` +
      (location === undefined && etag === undefined ? '' : `,"headers":${JSON.stringify(headers)}`) +
      (body === '' ? '' : `,"body":${body}`) +
      '}'
    );
  });
  const secret = replies.some((reply) => reply.headers?.['Cache-Control'] === 'no-store');
  return {
    status: 200,
    ...(secret ? { headers: { 'Cache-Control': 'no-store' } } : {}),
    body: `{"results":[${results.join(',')}]}`,
  };
}
