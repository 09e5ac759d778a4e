// POST on a collection (README: Methods): a new record answered 201 Created with its Location (RFC 9110 §15.3.2) and
// ETag, once it is durable; replayed instead when the POST repeats an Idempotency-Key (http/idempotency.ts).

import { authorize, requireBodyPermission } from '../auth/permissions.ts';
import { requireParentId, type RequestContext } from './context.ts';
import { JSON_MEDIA_TYPES, readJsonBody } from '../http/body.ts';
import { rejectQueryParameters } from '../http/record-query.ts';
import type { Reply } from '../http/respond.ts';
import type { ResourceDefinition, Vocabulary } from '../resources/definition.ts';
import { fieldsJson, serializeWritten } from '../resources/representation.ts';
import type { Change, Decision } from '../store/store.ts';
import type { IdempotentRequest } from '../http/idempotency.ts';
import type { JsonObject, StoredRecord } from '../records/json.ts';
import type { Actor } from '../auth/permissions.ts';
import { writeOnlyValues } from '../resources/validation.ts';
import type { WriteInput } from './write-record.ts';
import { fieldsToStore, recordToStore, hashedSecrets, preparedFields } from './write-record.ts';
import { issuedSecrets, withIssued, type Secrets } from './write-secrets.ts';
import { HttpError } from '../errors/errors.ts';
import { isoTimestamp } from '../records/timestamps.ts';
import { chosenId, idBeforeWrite, newRecordId, withIdChecked } from './chosen-ids.ts';

/** Checks the query, the permission and the parent before the body is read, then creates the record it holds. */
export function createRecord(
  context: RequestContext,
  definition: ResourceDefinition,
  vocabulary: Vocabulary,
): Promise<Reply> {
  rejectQueryParameters(context.queryString);
  // A record the server makes a secret for (an API key, a webhook) is kept from the saved answers of Idempotency-Key;
  // an API key is a credential, which no other key may make.
  const issuesSecret = definition.fields.some((rule) => rule.issued !== undefined);
  const actor = authorize(context, definition, 'create');
  if (definition.fields.some((rule) => rule.issued === 'api-key') && actor?.key !== undefined)
    throw new HttpError('forbidden', 'an API key cannot make API keys: sign in with a password or your provider');
  requireParentId(context, definition);
  return createFromBody(context, definition, vocabulary, actor, issuesSecret);
}

async function createFromBody(
  context: RequestContext,
  definition: ResourceDefinition,
  vocabulary: Vocabulary,
  actor: Actor | undefined,
  issuesSecret: boolean,
): Promise<Reply> {
  const body = await readJsonBody(context.req, JSON_MEDIA_TYPES, context.services.bodyLimits);
  const passwords = writeOnlyValues(definition.fields, body, vocabulary);
  context.valuesToRedact.push(...passwords);
  const idempotencyKey = context.req.headers['idempotency-key'];
  if (issuesSecret && idempotencyKey !== undefined)
    throw new HttpError(
      'idempotency_key_not_accepted',
      `Idempotency-Key is not accepted here: the saved answer would keep the new ${definition.singular}'s secret`,
    );
  // A public create without a token keys its Idempotency-Key by the client's address.
  const client = actor === undefined ? `address ${context.req.socket.remoteAddress ?? ''}` : `user ${actor.id}`;
  const keyed = context.services.idempotencyKeys.keyedRequest(
    Array.isArray(idempotencyKey) ? idempotencyKey.join(', ') : idempotencyKey,
    client,
    context.path,
    body,
  );
  if (keyed === undefined) return create(context, definition, vocabulary, body, passwords, actor, undefined);
  const replay = await context.store.read(() => context.services.idempotencyKeys.replayOrBegin(keyed, context.store));
  if (replay !== undefined) return replay;
  try {
    return await create(context, definition, vocabulary, body, passwords, actor, keyed);
  } finally {
    context.services.idempotencyKeys.finish(keyed);
  }
}

async function create(
  context: RequestContext,
  definition: ResourceDefinition,
  vocabulary: Vocabulary,
  sent: JsonObject,
  passwords: readonly string[],
  actor: Actor | undefined,
  keyed: IdempotentRequest | undefined,
): Promise<Reply> {
  const { store } = context;
  // A collection of string ids takes the new record's id from the body (README: Your own resources, ids).
  const chosen = chosenId(definition, sent, vocabulary);
  const { body } = chosen;
  // Run inside the write (and before it, for a password's hash): the parent as it is then, and the checks.
  const requireWriteInput = (): WriteInput => {
    const parentId = requireParentId(context, definition);
    requireBodyPermission(actor, definition, body, vocabulary, undefined);
    return {
      definition,
      vocabulary,
      mode: 'create',
      body,
      store,
      parentId,
      ...(actor === undefined ? {} : { creatorId: actor.id }),
    };
  };
  // Only a body that carries a password waits here, for its hash (write-record.ts).
  const hashed =
    passwords.length === 0
      ? undefined
      : await store.read(() =>
          withIdChecked(chosen, () => hashedSecrets(requireWriteInput(), context.services.config.passwordHashCost)),
        );
  // A webhook's URL is checked once its name is resolved, and its place in the change feed taken (context.ts).
  const preparation = context.services.preparations?.get(definition.collection);
  const prepared =
    preparation === undefined
      ? undefined
      : await store.read(() => withIdChecked(chosen, () => preparedFields(requireWriteInput(), preparation)));
  // Taken once: a store may decide again (store.ts: RequestStore.write), and must get the same record.
  const now = isoTimestamp();
  const before = idBeforeWrite(definition, chosen);
  const issued = issuedSecrets(definition);
  return store.write((): Decision<Reply> => {
    const replay = keyed === undefined ? undefined : context.services.idempotencyKeys.savedAnswer(keyed, store);
    if (replay !== undefined) return { changes: [], result: replay };
    const checked = withIdChecked(chosen, () => fieldsToStore(requireWriteInput(), withIssued(hashed, issued)));
    const next = prepared === undefined ? checked : { ...checked, ...prepared };
    const record = recordToStore(definition, next, newRecordId(definition, store, before), now, now);
    const { stored, reply } = createdReply(context.path, definition, vocabulary, record, issued);
    const changes: Change[] = [{ kind: 'put', collection: definition.collection, record, json: stored, created: true }];
    if (keyed === undefined) return { changes, result: reply };
    changes.push(...context.services.idempotencyKeys.changesToSave(keyed, reply, store));
    return { changes, result: reply };
  });
}

/**
 * 201 with the new record (or its `x-created-fields`) and the secrets made for it, shown only here; its Location and
 * ETag; and the record as stored.
 */
function createdReply(
  collectionPath: string,
  definition: ResourceDefinition,
  vocabulary: Vocabulary,
  record: StoredRecord,
  issued: Secrets | undefined,
): { stored: string; reply: Reply } {
  const { stored, representation } = serializeWritten(definition, record, vocabulary);
  // The ETag is the record's as reads show it (RFC 9110 §8.8.3), for a later If-None-Match or If-Match.
  const headers: Record<string, string> = { Location: `${collectionPath}/${record.id}`, ETag: representation.etag };
  const created = definition.createdFields;
  const body = created === undefined ? representation.json : fieldsJson(definition, record, vocabulary, created);
  if (issued === undefined) return { stored, reply: { status: 201, headers, body } };
  // A secret shown once is kept by no cache (RFC 9111 §5.2.2.5).
  const secrets = Object.fromEntries([...issued].map(([name, { plain }]) => [vocabulary.name(name), plain]));
  const shown = JSON.stringify({ ...(JSON.parse(body) as JsonObject), ...secrets });
  return { stored, reply: { status: 201, headers: { ...headers, 'Cache-Control': 'no-store' }, body: shown } };
}
