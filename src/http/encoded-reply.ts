// The representation an answer goes out as, chosen last (RFC 9110 §12.5.3, §13.2.2): its body compressed when the
// client accepts a coding and the body is worth it, with `Vary: Accept-Encoding` and an entity tag of its own; then a
// GET's If-None-Match compared with the tag of what would be sent, 304 when the client's copy is current (§13.1.2).

import type { IncomingMessage } from 'node:http';
import { chooseCoding } from './accept-encoding.ts';
import { codedEntityTag, compressed, MIN_COMPRESSED_BYTES } from './compression.ts';
import { matchesIfNoneMatch } from './conditional.ts';
import type { Headers, Reply } from './respond.ts';

/** The headers a 304 repeats from the 200 it stands for (RFC 9110 §15.4.5). */
const REPEATED_ON_304 = ['ETag', 'Cache-Control', 'Content-Location', 'Expires', 'Vary'];

export function encodedReply(req: IncomingMessage, reply: Reply): Reply {
  // An event stream goes out as written, and an answer without a body has nothing to code.
  if (reply.stream !== undefined || reply.body === undefined || reply.status === 204 || reply.status === 304)
    return reply;
  const headers: Headers = { ...reply.headers, Vary: withAcceptEncoding(reply.headers?.['Vary']) };
  let { body, bodyLength } = reply;
  const { coding, identity } = chooseCoding(req.headers['accept-encoding']);
  if (coding !== undefined && (identity === false || (bodyLength ?? Buffer.byteLength(body)) >= MIN_COMPRESSED_BYTES)) {
    body = compressed(body, coding, reply.keptWith);
    bodyLength = body.length;
    headers['Content-Encoding'] = coding;
    const etag = headers['ETag'];
    if (etag !== undefined) headers['ETag'] = codedEntityTag(etag, coding);
  }
  const etag = headers['ETag'];
  const isRead = req.method === 'GET' || req.method === 'HEAD';
  if (isRead && reply.status === 200 && etag !== undefined && matchesIfNoneMatch(req.headers['if-none-match'], etag)) {
    const repeated: Headers = {};
    for (const name of REPEATED_ON_304) if (headers[name] !== undefined) repeated[name] = headers[name];
    return { status: 304, headers: repeated };
  }
  return { ...reply, headers, body, bodyLength };
}

function withAcceptEncoding(vary: string | undefined): string {
  return vary === undefined ? 'Accept-Encoding' : `${vary}, Accept-Encoding`;
}
