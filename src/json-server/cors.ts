// CORS as json-server's defaults give it (docs/json-server.md: Serving json-server's dialect; the cors package with
// `origin: true, credentials: true`): the request's Origin reflected, credentials allowed, and any OPTIONS a preflight,
// 204 with every method and the headers asked for. With `cors: false` (json-server's --no-cors) none of them is sent.

import type { IncomingMessage } from 'node:http';
import type { Headers, Reply } from '../http/respond.ts';

/** The methods json-server's preflight allows, and its routes take. */
const METHODS = 'GET,HEAD,PUT,PATCH,POST,DELETE';

/** The headers every answer gets, as the cors package sends them: the Origin only when the request has one. */
export function corsHeaders(req: IncomingMessage): Headers {
  const origin = req.headers.origin;
  return {
    ...(origin === undefined ? {} : { 'Access-Control-Allow-Origin': origin }),
    Vary: 'Origin',
    'Access-Control-Allow-Credentials': 'true',
  };
}

/** The answer to an OPTIONS request, a preflight or not. */
export function preflight(req: IncomingMessage): Reply {
  const asked = req.headers['access-control-request-headers'];
  return {
    status: 204,
    headers: {
      ...corsHeaders(req),
      'Access-Control-Allow-Methods': METHODS,
      ...(asked === undefined
        ? {}
        : { 'Access-Control-Allow-Headers': asked, Vary: 'Origin, Access-Control-Request-Headers' }),
    },
  };
}

/** The answer to an OPTIONS request without CORS: 204 and the methods served, nothing a browser's preflight reads. */
export function optionsWithoutCors(): Reply {
  return { status: 204, headers: { Allow: METHODS } };
}
