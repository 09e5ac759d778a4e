// Compressed answers (RFC 9110 §8.4): br, zstd where the running Node has it, and gzip, with `node:zlib`. A body that
// lives on (a record's representation, a cached page, the OpenAPI document) keeps its compressed forms, so it is
// compressed once per coding, not once per request.

import * as zlib from 'node:zlib';

export type Coding = 'br' | 'zstd' | 'gzip';

/** zstd came to node:zlib in Node 22.15 and 23.8; Node 20 and its types have none. */
interface MaybeZstd {
  readonly zstdCompressSync?: (data: Buffer) => Buffer;
}
const zstdCompress = (zlib as MaybeZstd).zstdCompressSync;

/** The codings plainrest sends, in the order it prefers them when a client weighs them alike. */
export const CODINGS: readonly Coding[] = zstdCompress === undefined ? ['br', 'gzip'] : ['br', 'zstd', 'gzip'];

/** Bodies shorter than this are sent as they are, unless the client refuses that: compressing gains them little. */
export const MIN_COMPRESSED_BYTES = 1024;

/** Brotli's quality for answers: 5 of 11 keeps most of the gain at a fraction of the time of the highest. */
const BROTLI_QUALITY = 5;

/**
 * The cache of compressed forms, by the object their body lives with (Reply.bodyOwner), which a reader may skip: a kept
 * form is `compress(body, coding)` made earlier. A page of 100 gzipped: 9,299 answers/s against 790 with CACHES=false,
 * page and form made afresh (bench/README.md, the caches' table); CACHES=false passes no owner (http/respond.ts).
 */
const compressedForms = new WeakMap<object, Map<Coding, Buffer>>();

/** `body` compressed with `coding`; kept with `owner` when there is one, and taken from there next time. */
export function compressed(body: string | Buffer, coding: Coding, owner: object | undefined): Buffer {
  if (owner === undefined) return compress(body, coding);
  let forms = compressedForms.get(owner);
  if (forms === undefined) {
    forms = new Map();
    compressedForms.set(owner, forms);
  }
  let bytes = forms.get(coding);
  if (bytes === undefined) {
    bytes = exactCopy(compress(body, coding));
    forms.set(coding, bytes);
  }
  return bytes;
}

/**
 * zlib's result is a view of its 16 KiB output chunk, and a small Buffer.from a view of an 8 KiB pool: a form kept for
 * as long as its record lives gets memory of its own, of its own size.
 */
function exactCopy(bytes: Buffer): Buffer {
  const copy = Buffer.allocUnsafeSlow(bytes.length);
  bytes.copy(copy);
  return copy;
}

function compress(body: string | Buffer, coding: Coding): Buffer {
  const bytes = typeof body === 'string' ? Buffer.from(body) : body;
  if (coding === 'gzip') return zlib.gzipSync(bytes);
  if (coding === 'zstd' && zstdCompress !== undefined) return zstdCompress(bytes);
  return zlib.brotliCompressSync(bytes, {
    params: {
      [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY,
      [zlib.constants.BROTLI_PARAM_SIZE_HINT]: bytes.length,
    },
  });
}

/**
 * The entity tag of a body's compressed form: a strong tag names one sequence of bytes (RFC 9110 §8.8.3), so `"abc"`
 * sent with gzip is `"abc-gzip"`; a weak one (a list's) names what the body means, whatever its coding (§8.8.1).
 */
export function codedEntityTag(etag: string, coding: Coding): string {
  return etag.startsWith('W/') || !etag.endsWith('"') ? etag : `${etag.slice(0, -1)}-${coding}"`;
}

/** The entity tag `etag` names before any coding: what If-Match compares with the record's. */
export function uncodedEntityTag(etag: string): string {
  for (const coding of ['br', 'zstd', 'gzip']) {
    const suffix = `-${coding}"`;
    if (etag.endsWith(suffix)) return `${etag.slice(0, -suffix.length)}"`;
  }
  return etag;
}
