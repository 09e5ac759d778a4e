// A write's body as json-server reads it (docs/json-server.md: Serving json-server's dialect): a JSON object, held to
// the core's limits (http/body.ts: size, budget, time, depth); none at all is an empty object, as json-server's body
// parser leaves it. Read after the core's door has let the request in, as the core's own handlers read theirs.

import type { RequestContext } from '../handlers/context.ts';
import { JSON_MEDIA_TYPES, readJsonBody } from '../http/body.ts';
import type { JsonObject } from '../records/json.ts';

/** The body of the request `context` answers, in the file's names. */
export async function requestBody(context: RequestContext): Promise<JsonObject> {
  const { req } = context;
  const length = req.headers['content-length'];
  if (req.headers['transfer-encoding'] === undefined && (length === undefined || length === '0')) return {};
  return readJsonBody(req, JSON_MEDIA_TYPES, context.services.bodyLimits);
}
