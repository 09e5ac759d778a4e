// Reading a JSON request body, in the order of the README's Errors section: declared size (413, RFC 9110 §15.5.14),
// a body at all (400), media type and coding (415, §15.5.16), room in the server's budget (503), then the bytes (413
// past the limit; 408 past a deadline, §15.5.9), syntax (400) and depth. A JSON object (RFC 8259) in UTF-8, sent as it
// is or gzipped (§8.4; other codings 415, RFC 7694 §3), or handed over by the host that read it first (host-body.ts).

import type { IncomingMessage } from 'node:http';
import { gunzipSync } from 'node:zlib';
import type { JsonObject } from '../records/json.ts';
import { isJsonObject } from '../records/json.ts';
import type { BodyBudget } from './body-budget.ts';
import { HttpError } from '../errors/errors.ts';
import { bodyReadByHost, handedOverBytes } from './host-body.ts';

export const JSON_MEDIA_TYPES = ['application/json'] as const;
/** HTML forms' type (json-server/'s bodies may come so: WHATWG URL Standard §5). */
export const FORM_MEDIA_TYPES = ['application/x-www-form-urlencoded'] as const;
export const MERGE_PATCH_MEDIA_TYPES = ['application/merge-patch+json', 'application/json'] as const;

/** What every body read is held to. */
export interface BodyLimits {
  /** Larger bodies get 413 (MAX_BODY_BYTES). */
  readonly maxBytes: number;
  /** The bytes all bodies being read may hold at once (503 past it). */
  readonly budget: BodyBudget;
  /**
   * A body still arriving this long after its read began gets 408; undefined when the server's own requestTimeout cuts
   * a slow request off (startServer), as a host's server does not at plainrest's setting (createApp).
   */
  readonly timeoutMs: number | undefined;
}

/**
 * The connection closed before the whole body arrived (the client went away, or was cut off): no answer can reach it.
 * Not a server failure: server/listener.ts logs it as such.
 */
export class BodyNotReceived extends Error {
  constructor() {
    super('the connection closed before the request body could be read');
  }
}

const UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/**
 * JSON.parse accepts any depth, but later recursive work on the value (serialising it,
 * walking it) would overflow the stack; no resource here nests more than a few levels.
 */
export const MAX_NESTING = 32;

/**
 * Bodies read, by request: a request a store runs again from the start (store/store.ts: Store.serve, on PostgreSQL)
 * gets what its first run read.
 */
const bodiesRead = new WeakMap<IncomingMessage, Promise<JsonObject>>();

/**
 * The request's body as a JSON object, or the error refusing it (the checks above, readOnce); read the first time it
 * is asked for: a request run again gets the same promise (bodiesRead).
 */
export function readJsonBody(
  req: IncomingMessage,
  mediaTypes: readonly string[],
  limits: BodyLimits,
): Promise<JsonObject> {
  return readBodyAs(req, mediaTypes, limits, jsonObjectOf);
}

/**
 * The request's body as `parse` makes an object of its bytes (another syntax than JSON's: a form's), held to the same
 * checks but the syntax's; read the first time it is asked for, as readJsonBody's.
 */
export function readBodyAs(
  req: IncomingMessage,
  mediaTypes: readonly string[],
  limits: BodyLimits,
  parse: (bytes: Buffer) => JsonObject,
): Promise<JsonObject> {
  let body = bodiesRead.get(req);
  if (body === undefined) {
    body = readOnce(req, mediaTypes, limits, parse);
    bodiesRead.set(req, body);
  }
  return body;
}

/**
 * Makes `body` what readJsonBody gives for `req`: the body of a batch's operation, already read and checked with the
 * batch's (README: Batches).
 */
export function giveJsonBody(req: IncomingMessage, body: JsonObject): void {
  bodiesRead.set(req, Promise.resolve(body));
}

/** Reads the body off the socket (or takes what the host handed over), checking it in the order of the header above. */
async function readOnce(
  req: IncomingMessage,
  mediaTypes: readonly string[],
  { maxBytes, budget, timeoutMs }: BodyLimits,
  parse: (bytes: Buffer) => JsonObject,
): Promise<JsonObject> {
  const declaredLength = req.headers['content-length'];
  const declared = declaredLength === undefined ? 0 : Number(declaredLength);
  // Refused before any byte is read; a streamed body is counted as it comes (readBytes).
  if (declared > maxBytes) throw tooLarge(maxBytes);
  const hasBody =
    req.headers['transfer-encoding'] !== undefined || (declaredLength !== undefined && declaredLength !== '0');
  if (!hasBody) throw new HttpError('body_required', 'this request needs a JSON object as its body');
  requireMediaType(req.headers['content-type'], mediaTypes, req.method === 'PATCH');
  // A body parser of the host's read the body first: what it handed over, already decoded and held, is checked as the
  // bytes off the socket would be.
  if (bodyReadByHost(req)) {
    const handedOver = handedOverBytes(req);
    if (handedOver.length > maxBytes) throw tooLarge(maxBytes);
    return parse(handedOver);
  }
  const coding = requireGzipOrIdentity(req.headers['content-encoding']);

  // The bytes held come out of the server-wide budget (body-budget.ts) while the body is read and parsed.
  if (!budget.take(declared)) throw overloaded(req);
  const held = { bytes: declared };
  try {
    const received = await readBytes(req, maxBytes, budget, held, timeoutMs);
    return parse(coding === 'gzip' ? gunzipped(received, maxBytes) : received);
  } finally {
    budget.give(held.bytes);
  }
}

/** `bytes` as a JSON object: valid UTF-8 JSON (else 400), an object (400), no deeper than MAX_NESTING (400). */
function jsonObjectOf(bytes: Buffer): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(UTF8.decode(bytes));
  } catch {
    throw new HttpError('malformed_json', 'the body is not valid JSON in UTF-8');
  }
  if (!isJsonObject(parsed)) throw new HttpError('body_not_object', 'the body must be a JSON object');
  if (nestedDeeperThan(parsed, MAX_NESTING)) {
    throw new HttpError('body_too_deep', `the body nests objects and arrays more than ${MAX_NESTING} levels deep`);
  }
  return parsed;
}

/** 503 for a body the budget cannot hold now; the rest of it is read and dropped, and the connection closes. */
function overloaded(req: IncomingMessage): HttpError {
  req.resume();
  return new HttpError(
    'overloaded',
    'the server is holding as many request bodies as it can; retry after the time in Retry-After',
    {
      headers: { 'Retry-After': '1', Connection: 'close' },
    },
  );
}

function tooLarge(maxBytes: number): HttpError {
  return new HttpError('payload_too_large', `the body is larger than ${maxBytes} bytes`, {
    headers: { Connection: 'close' },
  });
}

/**
 * Throws 415 unless Content-Type is one of `allowed`, with an optional `charset=utf-8` (RFC 9110 §8.3.1; RFC 8259
 * §8.1 makes JSON UTF-8).
 */
function requireMediaType(header: string | undefined, allowed: readonly string[], isPatch: boolean): void {
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
  const detail =
    header === undefined ? `send the body with Content-Type ${accepted}` : `Content-Type must be ${accepted} (UTF-8)`;
  throw new HttpError('unsupported_media_type', detail, { headers });
}

/**
 * Reads the whole body; bytes beyond what `held` already took from the budget (a streamed body) are taken as they come.
 * A body not whole within `timeoutMs` (when set) is 408, and the connection closes.
 */
function readBytes(
  req: IncomingMessage,
  maxBytes: number,
  budget: BodyBudget,
  held: { bytes: number },
  timeoutMs: number | undefined,
): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let received = 0;
    const onTimeout = (): void => {
      cleanUp();
      reject(
        new HttpError('request_timeout', `the request body did not arrive within ${timeoutMs} ms`, {
          headers: { Connection: 'close' },
        }),
      );
    };
    // Unreferenced: a stalled body's connection is what keeps a process running, not this timer.
    const deadline = timeoutMs === undefined ? undefined : setTimeout(onTimeout, timeoutMs).unref();
    const onData = (chunk: Buffer): void => {
      received += chunk.length;
      if (received > maxBytes) {
        cleanUp();
        req.resume(); // discard the rest; the 413 closes the connection
        reject(tooLarge(maxBytes));
        return;
      }
      if (received > held.bytes) {
        const more = received - held.bytes;
        if (!budget.take(more)) {
          cleanUp();
          reject(overloaded(req));
          return;
        }
        held.bytes += more;
      }
      chunks.push(chunk);
    };
    const onEnd = (): void => {
      cleanUp();
      resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks, received));
    };
    // An IncomingMessage fails only when its connection closes mid-body ("aborted").
    const onError = (): void => {
      cleanUp();
      reject(new BodyNotReceived());
    };
    const cleanUp = (): void => {
      clearTimeout(deadline);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
    };
    // Closed before this read began: neither 'end' nor 'error' would come.
    if (req.destroyed) {
      cleanUp();
      reject(new BodyNotReceived());
      return;
    }
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}

/** True when objects and arrays nest deeper than `limit`; walks with its own stack, so any depth is safe. */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const stack: { value: object; depth: number }[] = [{ value: value as object, depth: 1 }];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    if (top.depth > limit) return true;
    for (const child of Object.values(top.value)) {
      if (typeof child === 'object' && child !== null) stack.push({ value: child, depth: top.depth + 1 });
    }
  }
  return false;
}

/**
 * The body's Content-Encoding: `gzip`, or `identity` (the field absent, or naming identity only: the body as it is);
 * throws 415 for any other coding, which plainrest does not undo.
 */
function requireGzipOrIdentity(header: string | undefined): 'gzip' | 'identity' {
  if (header === undefined) return 'identity';
  const codings = header
    .split(',')
    .map((coding) => coding.trim().toLowerCase())
    .filter((coding) => coding !== '' && coding !== 'identity');
  if (codings.length === 0) return 'identity';
  // RFC 9110 §8.4.1.3: x-gzip is gzip.
  if (codings.length === 1 && (codings[0] === 'gzip' || codings[0] === 'x-gzip')) return 'gzip';
  throw new HttpError('unsupported_media_type', `Content-Encoding "${header}" is not accepted: send gzip or none`, {
    headers: { 'Accept-Encoding': 'gzip' },
  });
}

/** `bytes` ungzipped, at most `maxBytes` of them: 413 past that, 400 when they are not gzip. */
function gunzipped(bytes: Buffer, maxBytes: number): Buffer {
  try {
    return gunzipSync(bytes, { maxOutputLength: Math.max(1, maxBytes) });
  } catch (error) {
    if (error instanceof RangeError) {
      throw new HttpError('payload_too_large', `the body is larger than ${maxBytes} bytes once ungzipped`);
    }
    throw new HttpError('malformed_request', 'the body is sent with Content-Encoding: gzip but is not gzip');
  }
}
