// GET on one record (README: Methods): its representation, or only the `fields` asked for, with related records
// embedded on request (`embed`), under a strong ETag that If-None-Match is matched against (RFC 9110 §13.1.2;
// http/respond.ts).

import { authorize } from '../auth/permissions.ts';
import { requireRecord, type RequestContext } from './context.ts';
import { parseRecordParameters } from '../http/record-query.ts';
import type { Reply } from '../http/respond.ts';
import type { ResourceDefinition, Vocabulary } from '../resources/definition.ts';
import type { Representation } from '../resources/representation.ts';
import { represent, representationOfJson, fieldsJson } from '../resources/representation.ts';
import { withEmbedded } from './related-records.ts';

export function readRecord(context: RequestContext, definition: ResourceDefinition, vocabulary: Vocabulary): Reply {
  const { fields, embed } = parseRecordParameters(definition, context.queryString);
  authorize(context, definition, 'read');
  const record = requireRecord(context, definition);
  let representation =
    fields === undefined
      ? represent(definition, record, vocabulary, context.services.config.caches)
      : representationOfJson(fieldsJson(definition, record, vocabulary, fields));
  if (embed !== undefined)
    representation = representationOfJson(
      withEmbedded(
        context,
        { record, json: representation.json, path: context.path, ids: context.ids },
        embed,
        vocabulary,
      ),
    );
  return representationReply(representation);
}

/** 200 with the record's representation, its ETag, and its length already measured; compressed forms kept with it. */
export function representationReply(representation: Representation): Reply {
  const { json, length, etag } = representation;
  return { status: 200, headers: { ETag: etag }, body: json, bodyLength: length, bodyOwner: representation };
}
