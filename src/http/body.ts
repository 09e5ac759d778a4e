// Reading a JSON request body, with the checks in the order CONTRACT §7 gives:
// size (413, RFC 9110 §15.5.14), media type (415, §15.5.16), then syntax (400).
// The body must be a JSON object (RFC 8259) in UTF-8. A declared Content-Length over
// the limit is refused before any byte is read; a streamed body is counted as it comes.

import type { IncomingMessage } from 'node:http';
import type { JsonObject } from '../json.js';
import { isJsonObject } from '../json.js';
import { HttpError } from './errors.js';

export const JSON_MEDIA_TYPES = ['application/json'] as const;
export const MERGE_PATCH_MEDIA_TYPES = ['application/merge-patch+json', 'application/json'] as const;

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

export async function readJsonBody(
  req: IncomingMessage,
  maxBytes: number,
  mediaTypes: readonly string[],
): Promise<JsonObject> {
  const declaredLength = req.headers['content-length'];
  if (declaredLength !== undefined && Number(declaredLength) > maxBytes) throw tooLarge(maxBytes);
  const hasBody = req.headers['transfer-encoding'] !== undefined || (declaredLength !== undefined && declaredLength !== '0');
  if (!hasBody) throw new HttpError('body_required', 'this request needs a JSON object as its body');
  checkMediaType(req.headers['content-type'], mediaTypes, req.method === 'PATCH');

  const bytes = await readBytes(req, maxBytes);
  let parsed: unknown;
  try {
    parsed = JSON.parse(UTF8.decode(bytes));
  } catch {
    throw new HttpError('malformed_json', 'the body is not valid JSON in UTF-8');
  }
  if (!isJsonObject(parsed)) throw new HttpError('body_not_object', 'the body must be a JSON object');
  return parsed;
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError('payload_too_large', `the body is larger than ${maxBytes} bytes`, {
    headers: { Connection: 'close' },
  });
}

/** `type/subtype` with an optional `charset=utf-8` (RFC 9110 §8.3.1; RFC 8259 §8.1 makes JSON UTF-8). */
function checkMediaType(header: string | undefined, allowed: readonly string[], isPatch: boolean): void {
  if (header !== undefined && allowed.includes(header)) return; // the usual case, exactly as listed
  const [essence = '', ...parameters] = (header ?? '').split(';');
  const type = essence.trim().toLowerCase();
  const charsetOk = parameters.every((parameter) => {
    const [name = '', value = ''] = parameter.split('=');
    return name.trim().toLowerCase() !== 'charset' || value.trim().replace(/"/g, '').toLowerCase() === 'utf-8';
  });
  if (allowed.includes(type) && charsetOk) return;
  const accepted = allowed.join(', ');
  // RFC 5789 §3.1: a 415 to a PATCH advertises the patch formats in Accept-Patch.
  const headers: Record<string, string> = isPatch ? { 'Accept-Patch': accepted } : {};
  const detail = header === undefined ? `send the body with Content-Type ${accepted}` : `Content-Type must be ${accepted} (UTF-8)`;
  throw new HttpError('unsupported_media_type', detail, { headers });
}

function readBytes(req: IncomingMessage, maxBytes: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > maxBytes) {
        cleanUp();
        req.resume(); // discard the rest; the 413 closes the connection
        reject(tooLarge(maxBytes));
        return;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanUp();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, received));
    };
    const onError = (error: Error): void => {
      cleanUp();
      reject(error);
    };
    const cleanUp = (): void => {
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}
