// A request body the host application read before plainrest (README: Embedding; docs/embedding.md): Express's
// express.json(), or any body-parser, leaves it on `req.body` (a parsed value, or a Buffer or string from its raw and
// text parsers), and a Fastify route hands it over the same way (`request.raw.body = request.body`). Its JSON text is
// then checked as a body off the socket is; a body read and not handed over is a 500 naming the cause, never a wait.

import type { IncomingMessage } from 'node:http';
import { HttpError } from '../errors/errors.ts';

/** True when something read the request's bytes before plainrest: they will not come again. */
export function bodyReadByHost(req: IncomingMessage): boolean {
  return req.readableDidRead || req.readableEnded;
}

/**
 * The body the host handed over on `req.body`, as bytes of JSON text: a Buffer or string as it is (taken as decoded:
 * body-parser undoes gzip and deflate), a parsed value as JSON.stringify writes it. Throws the 500 `body_already_read`
 * when there is none, or it is no JSON value.
 */
export function handedOverBytes(req: IncomingMessage): Buffer {
  const body: unknown = Reflect.get(req, 'body');
  if (Buffer.isBuffer(body)) return body;
  if (body instanceof Uint8Array) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (typeof body === 'string') return Buffer.from(body, 'utf8');
  if (body === undefined) {
    throw new HttpError(
      'body_already_read',
      'the application plainrest runs in read the request body before plainrest (a body parser such as ' +
        'express.json() ahead of it) and did not hand it over: mount plainrest before the body parser, or leave ' +
        'the parsed body on req.body',
    );
  }
  let text: string | undefined;
  try {
    text = JSON.stringify(body);
  } catch {
    text = undefined;
  }
  if (text === undefined)
    throw new HttpError(
      'body_already_read',
      'the application plainrest runs in handed over on req.body a value that is not JSON data: hand over what ' +
        'its JSON parser made, or the body as a Buffer or string',
    );
  return Buffer.from(text, 'utf8');
}
