// CORS as json-server's defaults give it (docs/json-server.md: Serving json-server's dialect; the cors package with
// `origin: true, credentials: true`): the request's Origin reflected with credentials allowed, and any OPTIONS a
// preflight, 204 with every method and the headers asked for. Tokens travel in Authorization, never in cookies.

import type { IncomingMessage } from 'node:http';
import type { Headers, Reply } from '../http/respond.ts';

/** The headers every answer to a request from a page of `Origin` gets; undefined without an Origin. */
export function corsHeaders(req: IncomingMessage): Headers | undefined {
  const origin = req.headers.origin;
  if (origin === undefined) return undefined;
  return { 'Access-Control-Allow-Origin': origin, Vary: 'Origin', 'Access-Control-Allow-Credentials': 'true' };
}

/** The answer to an OPTIONS request, a preflight or not. */
export function preflight(req: IncomingMessage): Reply {
  const asked = req.headers['access-control-request-headers'];
  return {
    status: 204,
    headers: {
      ...corsHeaders(req),
      'Access-Control-Allow-Methods': 'GET,HEAD,PUT,PATCH,POST,DELETE',
      ...(asked === undefined
        ? {}
        : { 'Access-Control-Allow-Headers': asked, Vary: 'Origin, Access-Control-Request-Headers' }),
    },
  };
}
