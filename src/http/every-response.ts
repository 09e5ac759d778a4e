// Headers added to whatever the answer is (README: Headers): CORS for allowed origins
// (the Fetch standard); the RateLimit-* fields while limiting is on — answers given
// before the limit was checked (404, 405, 401) show the address's bucket without taking
// from it; and Connection: close during a shutdown.

import type { IncomingMessage } from 'node:http';
import type { CorsOrigins } from './cors.ts';
import { corsHeaders } from './cors.ts';
import type { RateLimiter } from './rate-limit.ts';
import { addressKey } from './rate-limit.ts';
import type { Headers, Reply } from './respond.ts';

export function headersForEveryResponse(
  req: IncomingMessage,
  reply: Reply,
  rateLimit: Headers | undefined,
  limiter: RateLimiter | undefined,
  corsOrigins: CorsOrigins,
  shuttingDown: boolean,
): Headers | undefined {
  const cors = corsHeaders(corsOrigins, req.headers, reply.headers?.['Allow']);
  const limits = limiter === undefined ? undefined : (rateLimit ?? limiter.peek(addressKey(req)));
  if (cors === undefined && limits === undefined && !shuttingDown) return undefined;
  const closing = shuttingDown && reply.headers?.['Connection'] === undefined;
  return { ...cors, ...limits, ...(closing ? { Connection: 'close' } : {}) };
}
