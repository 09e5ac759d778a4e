// Conditional requests with entity tags (RFC 9110 §13.1). If-None-Match uses the weak comparison and answers GET/HEAD
// with 304, any other method with 412 (§13.1.2); If-Match uses the strong comparison and refuses a write with 412
// (§13.1.1), and is evaluated first (§13.2.2). `*` matches any current record.

import type { IncomingHttpHeaders } from 'node:http';
import { HttpError } from '../errors/errors.ts';
import { uncodedEntityTag } from './compression.ts';

const ENTITY_TAG = /(W\/)?"[^"]*"/g;

/** A read's tag stands for itself: one function, not a new one on every call. */
const itself = (tag: string): string => tag;

function entityTags(header: string): string[] {
  return header.match(ENTITY_TAG) ?? [];
}

/**
 * True when If-None-Match names `etag` by the weak comparison, or is `*`: a GET or HEAD then answers 304, a write 412.
 * `named` is the tag a client's tag stands for: itself for a read (whose tag names its coding), its uncoded form for a
 * write (which compares with the record's).
 */
export function matchesIfNoneMatch(
  header: string | undefined,
  etag: string,
  named: (tag: string) => string = itself,
): boolean {
  if (header === undefined) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return entityTags(header).some((tag) => named(tag.replace(/^W\//, '')) === opaque);
}

/** Throws 412 unless a write's preconditions hold for the record whose current entity tag is `etag` (§13.2.2). */
export function requireWritePreconditions(headers: IncomingHttpHeaders, etag: string): void {
  requireIfMatch(headers['if-match'], etag);
  requireNoMatch(headers['if-none-match'], etag);
}

/**
 * Throws 412 when a write that would create the record (a singleton's first PUT) carries If-Match: there is no current
 * representation for it to match, not even `*` (§13.1.1).
 */
export function requireCreatePreconditions(headers: IncomingHttpHeaders): void {
  if (headers['if-match'] === undefined) return;
  throw new HttpError('precondition_failed', 'If-Match names a current record, and there is none yet');
}

/** Throws 412 unless If-Match is absent or names the current strong entity tag. */
function requireIfMatch(header: string | undefined, etag: string): void {
  if (header === undefined || header.trim() === '*') return;
  // A tag the client got with a compressed answer names the same record (compression.ts).
  if (entityTags(header).some((tag) => uncodedEntityTag(tag) === etag)) return;
  throw new HttpError('precondition_failed', 'If-Match does not match the current ETag of this record', {
    headers: { ETag: etag },
  });
}

/**
 * Throws 412 when If-None-Match is `*` or names the current record by the weak comparison (§13.1.2): a client that
 * asked to write only if the record is not as it knows it, or only if there is none (`*`, "create only if absent").
 */
function requireNoMatch(header: string | undefined, etag: string): void {
  // A tag the client got with a compressed answer names the same record (compression.ts).
  if (!matchesIfNoneMatch(header, etag, uncodedEntityTag)) return;
  throw new HttpError('precondition_failed', 'If-None-Match matches the current ETag of this record', {
    headers: { ETag: etag },
  });
}
