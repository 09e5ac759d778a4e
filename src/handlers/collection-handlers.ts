// GET and POST on a collection (README: Methods, Lists): a page of records in the list
// envelope with a Link header, or a new record answered 201 Created with its
// Location (RFC 9110 §15.3.2) and ETag — replayed instead when the POST repeats an
// Idempotency-Key (http/idempotency.ts).

import { authorize, listsOwnRecordsOnly, requireBodyPermission } from '../auth/permissions.ts';
import { requireParent, type RequestContext } from './context.ts';
import { JSON_MEDIA_TYPES, readJsonBody } from '../http/body.ts';
import { parseListParameters, rejectQueryParameters } from '../http/list-query.ts';
import { withEmbedded } from './related-records.ts';
import { linkHeader, pageLinks, pageMeta } from '../http/pagination.ts';
import type { CachedPage } from '../http/page-cache.ts';
import type { Reply } from '../http/respond.ts';
import type { ResourceDefinition, Vocabulary } from '../resources/definition.ts';
import { OWNER_FIELD_NAME } from '../resources/definition.ts';
import { entityTag, represent, representFields, serializeWritten } from '../resources/representation.ts';
import type { Change, Decision, RecordReads } from '../store/store.ts';
import type { Filter } from '../store/query.ts';
import type { IdempotentRequest } from '../http/idempotency.ts';
import type { JsonObject, StoredRecord } from '../records/json.ts';
import type { Actor } from '../auth/permissions.ts';
import { writeOnlyValues } from '../resources/validation.ts';
import type { WritePlan } from './write-record.ts';
import { decideWrite, finishRecord, secretsToHash } from './write-record.ts';
import { issuedSecrets, withIssued, type Secrets } from './write-secrets.ts';
import { HttpError } from '../errors/errors.ts';
import { isoTimestamp } from '../records/timestamps.ts';

export function listRecords(context: RequestContext, definition: ResourceDefinition, vocabulary: Vocabulary): Reply {
  const { listPages } = context.services;
  const { store } = context;
  // A list of one's own records differs by caller, so its cached page does too.
  const target = listsOwnRecordsOnly(context.actor, definition)
    ? `${context.path}?${context.search}#${context.actor.id}`
    : `${context.path}?${context.search}`;
  const version = pageVersion(store, definition);
  let page = listPages.get(target, version);
  if (page === undefined) {
    page = buildPage(context, definition, vocabulary, version);
    listPages.set(target, page);
  } else {
    // The query was valid when the page was built; who may see it is checked every time.
    authorize(context, definition, 'list');
    requireParent(context, definition);
  }
  return {
    status: 200,
    headers: { Link: page.link, ETag: page.etag },
    body: page.body,
    bodyLength: page.length,
    keptWith: page,
  };
}

/**
 * What a cached page of `definition` is valid for: a page may embed records of its
 * children and of the collections it references (handlers/related-records.ts), so it is stale when
 * any of them changed. Versions only grow, so their sum changes whenever one does.
 */
function pageVersion(store: RecordReads, definition: ResourceDefinition): number {
  let version = store.version(definition.collection);
  for (const child of definition.children) version += store.version(child.collection);
  for (const { definition: target } of definition.referencing) version += store.version(target.collection);
  return version;
}

function buildPage(
  context: RequestContext,
  definition: ResourceDefinition,
  vocabulary: Vocabulary,
  version: number,
): CachedPage {
  const parameters = parseListParameters(definition, context.search);
  const actor = authorize(context, definition, 'list');
  const parentId = requireParent(context, definition);
  const filters: Filter[] = [...parameters.filters];
  if (definition.parent !== undefined && parentId !== undefined)
    filters.unshift({ field: definition.parent.field, value: parentId });
  if (listsOwnRecordsOnly(actor, definition)) filters.unshift({ field: OWNER_FIELD_NAME, value: actor.id });

  const { records, total } = context.store.query(definition.collection, {
    filters,
    ...(parameters.ranges === undefined ? {} : { ranges: parameters.ranges }),
    ...(parameters.search === undefined ? {} : { search: parameters.search }),
    sort: parameters.sort,
    offset: (parameters.page - 1) * parameters.limit,
    limit: parameters.limit,
  });
  const meta = pageMeta(parameters, total);
  const links = pageLinks(context.path, vocabulary, parameters, meta);
  const { fields: selection, embed } = parameters;
  const data = records
    .map((record) => {
      const json =
        selection === undefined
          ? represent(definition, record, vocabulary).json
          : representFields(definition, record, vocabulary, selection);
      return embed === undefined
        ? json
        : withEmbedded(
            context,
            record,
            json,
            `${context.path}/${record.id}`,
            [...context.ids, record.id],
            embed,
            vocabulary,
          );
    })
    .join(',');
  const body = `{"data":[${data}],"meta":${JSON.stringify(meta)},"links":${JSON.stringify(links)}}`;
  // A list has no stable identity, so its validator is weak (RFC 9110 §8.8.1): equal
  // bodies, equal tags. If-None-Match uses the weak comparison anyway (§13.1.2).
  return { version, body, length: Buffer.byteLength(body), etag: `W/${entityTag(body)}`, link: linkHeader(links) };
}

/** Checks the query, the permission and the parent before the body is read, then creates the record it holds. */
export function createRecord(
  context: RequestContext,
  definition: ResourceDefinition,
  vocabulary: Vocabulary,
): Promise<Reply> {
  rejectQueryParameters(context.search);
  // A record the server makes a secret for (an API key) is a credential: no other key may make one.
  const issuesSecret = definition.fields.some((rule) => rule.issued !== undefined);
  const actor = authorize(context, definition, 'create');
  if (issuesSecret && actor?.key !== undefined)
    throw new HttpError('forbidden', 'an API key cannot make API keys: sign in with a password or your provider');
  requireParent(context, definition);
  return createFromBody(context, definition, vocabulary, actor, issuesSecret);
}

async function createFromBody(
  context: RequestContext,
  definition: ResourceDefinition,
  vocabulary: Vocabulary,
  actor: Actor | undefined,
  issuesSecret: boolean,
): Promise<Reply> {
  const body = await readJsonBody(
    context.req,
    context.services.config.maxBodyBytes,
    JSON_MEDIA_TYPES,
    context.services.bodyBudget,
  );
  context.secrets.push(...writeOnlyValues(definition.fields, body, vocabulary));
  const header = context.req.headers['idempotency-key'];
  if (issuesSecret && header !== undefined)
    throw new HttpError(
      'idempotency_key_not_accepted',
      `Idempotency-Key is not accepted here: the saved answer would keep the new ${definition.singular}'s secret`,
    );
  // A public create without a token keys its Idempotency-Key by the client's address.
  const client = actor === undefined ? `address ${context.req.socket.remoteAddress ?? ''}` : `user ${actor.id}`;
  const idempotent = context.services.idempotencyKeys.request(
    Array.isArray(header) ? header.join(', ') : header,
    client,
    context.path,
    body,
  );
  if (idempotent === undefined) return create(context, definition, vocabulary, body, actor, undefined);
  const replay = await context.store.read(() => context.services.idempotencyKeys.begin(idempotent, context.store));
  if (replay !== undefined) return replay;
  try {
    return await create(context, definition, vocabulary, body, actor, idempotent);
  } finally {
    context.services.idempotencyKeys.finish(idempotent);
  }
}

async function create(
  context: RequestContext,
  definition: ResourceDefinition,
  vocabulary: Vocabulary,
  body: JsonObject,
  actor: Actor | undefined,
  idempotent: IdempotentRequest | undefined,
): Promise<Reply> {
  const { store } = context;
  const planFromCurrentState = (): WritePlan => {
    const parentId = requireParent(context, definition);
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
  const hashed = context.secrets.length === 0 ? undefined : await store.read(() => secretsToHash(planFromCurrentState));
  // Taken once: a store may decide again (store.ts: RequestStore.write), and must get the same record.
  const now = isoTimestamp();
  const issued = issuedSecrets(definition);
  return store.write((): Decision<Reply> => {
    const replay =
      idempotent === undefined ? undefined : context.services.idempotencyKeys.savedAnswer(idempotent, store);
    if (replay !== undefined) return { changes: [], result: replay };
    const { next } = decideWrite(planFromCurrentState, withIssued(hashed, issued));
    const record = finishRecord(definition, next, store.allocateId(definition.collection), now, now);
    const { stored, reply } = createdReply(context.path, definition, vocabulary, record, issued);
    const changes: Change[] = [{ kind: 'put', collection: definition.collection, record, json: stored, created: true }];
    if (idempotent === undefined) return { changes, result: reply };
    changes.push(...context.services.idempotencyKeys.changesToSave(idempotent, reply, store));
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
  const body = created === undefined ? representation.json : representFields(definition, record, vocabulary, created);
  if (issued === undefined) return { stored, reply: { status: 201, headers, body } };
  // A secret shown once is kept by no cache (RFC 9111 §5.2.2.5).
  const secrets = Object.fromEntries([...issued].map(([name, { plain }]) => [vocabulary.name(name), plain]));
  const shown = JSON.stringify({ ...(JSON.parse(body) as JsonObject), ...secrets });
  return { stored, reply: { status: 201, headers: { ...headers, 'Cache-Control': 'no-store' }, body: shown } };
}
