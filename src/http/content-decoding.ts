// Request bodies sent compressed (RFC 9110 §8.4): `Content-Encoding: gzip` is undone, the body's limit counting the
// bytes it holds once undone (413 past it, and never more than that held); any other coding is 415, naming gzip in
// Accept-Encoding (RFC 7694 §3).

import { gunzipSync } from 'node:zlib';
import { HttpError } from '../errors/errors.ts';

/** Whether the body comes gzipped (identity, or no field: as it is); 415 for a coding plainrest does not undo. */
export function isGzipped(header: string | undefined): boolean {
  if (header === undefined) return false;
  const codings = header
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length === 0) return false;
  // RFC 9110 §8.4.1.3: x-gzip is gzip.
  if (codings.length === 1 && (codings[0] === 'gzip' || codings[0] === 'x-gzip')) return true;
  throw new HttpError('unsupported_media_type', `Content-Encoding "${header}" is not accepted: send gzip or none`, {
    headers: { 'Accept-Encoding': 'gzip' },
  });
}

/** `bytes` ungzipped, at most `maxBytes` of them: 413 past that, 400 when they are not gzip. */
export function gunzipped(bytes: Buffer, maxBytes: number): Buffer {
  try {
    return gunzipSync(bytes, { maxOutputLength: Math.max(1, maxBytes) });
  } catch (error) {
    if (error instanceof RangeError) {
      throw new HttpError('payload_too_large', `the body is larger than ${maxBytes} bytes once ungzipped`);
    }
    throw new HttpError('malformed_request', 'the body is sent with Content-Encoding: gzip but is not gzip');
  }
}
