// The access log's JSON line (access-log.ts) written straight into a byte buffer for standard output
// (cli/buffered-lines.ts): byte for byte what formatAccessLine gives, in UTF-8, without first building the line as a
// string, a tree of pieces V8 must flatten before encoding it. Fixed pieces are copied from bytes encoded once; the
// request's own strings are written character by character (Buffer.write past plain ASCII), numbers digit by digit.

import { isoTimestamp } from '../records/timestamps.ts';
import type { AccessEntry } from '../logging/logger.ts';
import { twoDecimals } from './access-log.ts';

/**
 * The line's fixed pieces, encoded once (all ASCII): copying bytes costs a fraction of writing a string character by
 * character.
 */
const DURATION_KEY = ascii(',"duration_ms":');
const USER_KEY = ascii(',"user_id":');
const NULL = ascii('null');
const LINE_END = ascii('}\n');

const TIME_KEY = '{"time":"';
const REQUEST_ID_KEY = '","request_id":"';

/**
 * `{"time":"…","request_id":"` for the last time seen, rewritten in place when the time changes: under load many
 * lines share a millisecond.
 */
let startTime = '';
let startBytes: Uint8Array = ascii(`${TIME_KEY}${REQUEST_ID_KEY}`);

function lineStart(time: string): Uint8Array {
  if (time !== startTime) {
    if (time.length === startTime.length) {
      // The same fixed pieces around a time of the same length: only the time's characters change.
      for (let index = 0; index < time.length; index++) startBytes[TIME_KEY.length + index] = time.charCodeAt(index);
    } else {
      startBytes = ascii(`${TIME_KEY}${time}${REQUEST_ID_KEY}`); // all ASCII
    }
    startTime = time;
  }
  return startBytes;
}

function ascii(text: string): Uint8Array {
  return Buffer.from(text, 'latin1');
}

/**
 * The most bytes the line for `entry` can take: JSON escapes a character in at most 6 bytes, UTF-8 encodes one in at
 * most 3.
 */
export function accessLineBound(entry: AccessEntry): number {
  return 256 + 3 * (entry.requestId.length + entry.method.length) + 6 * entry.path.length;
}

/**
 * Writes the JSON access-log line for `entry`, newline included, into `buffer` at
 * `offset`, which must have accessLineBound(entry) bytes free; returns the offset after it.
 */
export function writeAccessLine(
  buffer: Buffer,
  offset: number,
  entry: AccessEntry,
  nowMs: number = Date.now(),
): number {
  let at = writeBytes(buffer, offset, lineStart(isoTimestamp(nowMs)));
  at = writeRaw(buffer, at, entry.requestId);
  at = writeBytes(buffer, at, methodPiece(entry.method));
  at = writeJsonString(buffer, at, entry.path);
  at = writeBytes(buffer, at, statusPiece(entry.status));
  at = writeInteger(buffer, at, entry.bytes);
  at = writeBytes(buffer, at, DURATION_KEY);
  at = writeTwoDecimals(buffer, at, entry.durationMs);
  at = writeBytes(buffer, at, USER_KEY);
  at = entry.userId === undefined ? writeBytes(buffer, at, NULL) : writeInteger(buffer, at, entry.userId);
  return writeBytes(buffer, at, LINE_END);
}

/**
 * `","method":"GET","path":` for each method, and `,"status":200,"bytes":` for each
 * status, encoded once: a few methods and statuses make most lines, and one piece copies
 * faster than three. Node's parser passes only the methods it knows (a few dozen).
 */
const methodPieces = new Map<string, Uint8Array>();
const statusPieces = new Map<number, Uint8Array>();
const MAX_PIECES = 64;

function methodPiece(method: string): Uint8Array {
  let piece = methodPieces.get(method);
  if (piece === undefined) {
    piece = Buffer.from(`","method":"${method}","path":`); // UTF-8, as writeRaw would write the method
    if (methodPieces.size < MAX_PIECES) methodPieces.set(method, piece);
  }
  return piece;
}

function statusPiece(status: number): Uint8Array {
  let piece = statusPieces.get(status);
  if (piece === undefined) {
    piece = Buffer.from(`,"status":${status},"bytes":`);
    if (statusPieces.size < MAX_PIECES) statusPieces.set(status, piece);
  }
  return piece;
}

function writeBytes(buffer: Buffer, at: number, bytes: Uint8Array): number {
  buffer.set(bytes, at);
  return at + bytes.length;
}

/** What twoDecimals(value) prints, written as digits without making the string. */
function writeTwoDecimals(buffer: Buffer, at: number, value: number): number {
  const hundredths = Math.round(value * 100);
  if (!(hundredths >= 0 && hundredths <= Number.MAX_SAFE_INTEGER)) return writeRaw(buffer, at, twoDecimals(value));
  const whole = Math.floor(hundredths / 100);
  const fraction = hundredths - whole * 100;
  at = writeInteger(buffer, at, whole);
  if (fraction === 0) return at;
  buffer[at] = 0x2e; // .
  const tens = Math.floor(fraction / 10);
  buffer[at + 1] = 0x30 + tens;
  if (fraction === tens * 10) return at + 2;
  buffer[at + 2] = 0x30 + (fraction - tens * 10);
  return at + 3;
}

/** A whole number of at most 15 digits in decimal, as `${value}` prints it; anything else via that text. */
function writeInteger(buffer: Buffer, at: number, value: number): number {
  if (!Number.isInteger(value) || value < 0 || value > 999_999_999_999_999) return writeRaw(buffer, at, `${value}`);
  let digits = 1;
  for (let rest = value; rest >= 10; rest = Math.floor(rest / 10)) digits++;
  let rest = value;
  for (let index = digits - 1; index >= 0; index--) {
    const next = Math.floor(rest / 10);
    buffer[at + index] = 0x30 + (rest - next * 10);
    rest = next;
  }
  return at + digits;
}

/** `text` as it is (formatAccessLine does not escape it), in UTF-8. */
function writeRaw(buffer: Buffer, at: number, text: string): number {
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code > 0x7e) return at + buffer.write(text, at);
    buffer[at + index] = code;
  }
  return at + text.length;
}

/**
 * `text` as JSON.stringify writes it: plain printable ASCII is copied between quotes; anything else is left to
 * JSON.stringify.
 */
function writeJsonString(buffer: Buffer, at: number, text: string): number {
  buffer[at] = 0x22; // "
  for (let index = 0; index < text.length; index++) {
    const code = text.charCodeAt(index);
    if (code < 0x20 || code > 0x7e || code === 0x22 || code === 0x5c)
      return at + buffer.write(JSON.stringify(text), at);
    buffer[at + 1 + index] = code;
  }
  buffer[at + 1 + text.length] = 0x22;
  return at + text.length + 2;
}
