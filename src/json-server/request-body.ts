// A write's body as json-server reads it (docs/json-server.md: Serving json-server's dialect): a JSON object, or a form
// (form-body.ts: its values typed as the declared properties), held to the core's limits (http/body.ts: size, budget,
// time, depth); none at all is an empty object, as json-server's body parser leaves it. Read after the core's door has
// let the request in, as the core's own handlers read theirs.

import type { RequestContext } from '../handlers/context.ts';
import { FORM_MEDIA_TYPES, JSON_MEDIA_TYPES, readBodyAs, readJsonBody } from '../http/body.ts';
import type { JsonObject } from '../records/json.ts';
import type { DialectCollection } from './collections.ts';
import { formObject, typedForm } from './form-body.ts';

/** The body of the request `context` answers, in the file's names, for a record of `collection`. */
export async function requestBody(context: RequestContext, collection: DialectCollection): Promise<JsonObject> {
  const { req } = context;
  const length = req.headers['content-length'];
  if (req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) return {};
  const limits = context.services.bodyLimits;
  const type = req.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  if (type !== FORM_MEDIA_TYPES[0]) return readJsonBody(req, JSON_MEDIA_TYPES, limits);
  return typedForm(await readBodyAs(req, FORM_MEDIA_TYPES, limits, formObject), collection);
}
