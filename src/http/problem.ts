// Error bodies in the shape of RFC 9457 problem details (README: Errors): `type` about:blank with the status phrase
// as `title` (§4.2.1), plus this API's `code`, `request_id` and, for 400/422, `errors[]`. HttpErrors are shown, and a
// StoreUnavailable is a 503 `not_ready`; anything else is a bare 500 whose cause goes to the log under the request id,
// never to the client (koa's `err.expose`), with any secret it quotes redacted (logging/redact.ts).

import type { Logger } from '../logging/logger.ts';
import { HttpError, STATUS_TITLES, storeUnavailable } from '../errors/errors.ts';
import { StoreUnavailable } from '../store/store.ts';
import { wantsProblemJson } from './negotiation.ts';
import { redactSecrets } from '../logging/redact.ts';
import type { Reply } from './respond.ts';
import { JSON_TYPE, PROBLEM_TYPE } from './respond.ts';

export function problemReply(
  error: unknown,
  instance: string,
  requestId: string,
  accept: string | undefined,
  logger: Logger,
  valuesToRedact: readonly string[] = [],
): Reply {
  const known =
    error instanceof HttpError
      ? error
      : error instanceof StoreUnavailable
        ? storeUnavailable(error.message)
        : undefined;
  if (known === undefined) {
    const cause = error instanceof Error ? (error.stack ?? error.message) : String(error);
    logger.error(`request ${requestId} failed: ${redactSecrets(cause, valuesToRedact)}`);
  }
  const status = known?.status ?? 500;
  const body = {
    type: 'about:blank',
    title: STATUS_TITLES[status] ?? 'Error',
    status,
    code: known?.code ?? 'internal_error',
    detail: known?.message ?? 'the server failed to handle this request; quote the request_id when reporting it',
    instance,
    request_id: requestId,
    ...(known?.errors === undefined ? {} : { errors: known.errors }),
    ...(known?.operation === undefined ? {} : { operation: known.operation }),
  };
  return {
    status,
    headers: known?.headers,
    body: JSON.stringify(body),
    contentType: wantsProblemJson(accept) ? PROBLEM_TYPE : JSON_TYPE,
  };
}
