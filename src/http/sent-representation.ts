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

export function sentRepresentation(req: IncomingMessage, reply: Reply): Reply {
  // An event stream goes out as written, and an answer without a body has nothing to code.
  const { status, body } = reply;
  if (reply.stream !== undefined || body === undefined || status === 204 || status === 304) return reply;
  const headers: Headers = { ...reply.headers, Vary: withAcceptEncoding(reply.headers?.['Vary']) };
  const { coding: accepted, identity } = chooseCoding(req.headers['accept-encoding']);
  const length = reply.bodyLength ?? Buffer.byteLength(body);
  const coding = accepted !== undefined && (!identity || length >= MIN_COMPRESSED_BYTES) ? accepted : undefined;
  if (coding !== undefined) headers['Content-Encoding'] = coding;
  // A success's tag names its body; another answer's (a 412's) names the record as it is now.
  const etag = headers['ETag'];
  const success = status >= 200 && status < 300;
  if (coding !== undefined && etag !== undefined && success) headers['ETag'] = codedEntityTag(etag, coding);
  const isRead = req.method === 'GET' || req.method === 'HEAD';
  const sentTag = headers['ETag'];
  if (isRead && status === 200 && sentTag !== undefined && matchesIfNoneMatch(req.headers['if-none-match'], sentTag)) {
    const repeated: Headers = {};
    for (const name of REPEATED_ON_304) if (headers[name] !== undefined) repeated[name] = headers[name];
    return { status: 304, headers: repeated };
  }
  if (coding === undefined) return { ...reply, headers };
  const coded = compressed(body, coding, reply.keptWith);
  return { ...reply, headers, body: coded, bodyLength: coded.length };
}

function withAcceptEncoding(vary: string | undefined): string {
  return vary === undefined ? 'Accept-Encoding' : `${vary}, Accept-Encoding`;
}
