// Content negotiation on Accept (RFC 9110 §12.5.1). Every API answer is JSON, so a request whose Accept excludes JSON
// gets 406; the most specific matching media range decides its weight, so `*/*, application/json;q=0` refuses JSON.
// Errors are application/problem+json when the client names that type (RFC 9457 §3). The home page is the one HTML
// answer: at `/`, and at `/v1` when the client prefers HTML.

import { HttpError } from '../errors/errors.ts';

interface MediaRange {
  readonly type: string;
  readonly quality: number;
}

function parseAccept(header: string): MediaRange[] {
  return header.split(',').map((part) => {
    const [type = '', ...parameters] = part.split(';');
    let quality = 1;
    for (const parameter of parameters) {
      const [name = '', value = ''] = parameter.split('=');
      if (name.trim().toLowerCase() === 'q') quality = Number(value.trim());
    }
    return { type: type.trim().toLowerCase(), quality: Number.isFinite(quality) ? quality : 0 };
  });
}

/** The weight the client gives `mediaType` (0 when excluded). */
function qualityOf(ranges: readonly MediaRange[], mediaType: string): number {
  const [mainType] = mediaType.split('/');
  let best: MediaRange | undefined;
  let bestSpecificity = -1;
  for (const range of ranges) {
    const specificity =
      range.type === mediaType ? 2 : range.type === `${mainType}/*` ? 1 : range.type === '*/*' ? 0 : -1;
    if (specificity > bestSpecificity) {
      best = range;
      bestSpecificity = specificity;
    }
  }
  return best?.quality ?? 0;
}

/** An Accept that is empty or names every type: the client takes anything (RFC 9110 §12.5.1). */
function takesAnything(accept: string): boolean {
  return accept === '*/*' || accept.trim() === '';
}

/**
 * Throws 406 unless the client accepts JSON: application/json, or application/problem+json
 * named on its own (a client that wants errors in that form), but never when
 * application/json itself is refused with q=0.
 */
export function requireJsonAcceptable(accept: string | undefined): void {
  if (accept === undefined || takesAnything(accept) || accept === 'application/json') return;
  const ranges = parseAccept(accept);
  const json = qualityOf(ranges, 'application/json');
  const refusesJson = ranges.some((range) => range.type === 'application/json' && range.quality === 0);
  if (json > 0 || (!refusesJson && qualityOf(ranges, 'application/problem+json') > 0)) return;
  throw new HttpError('not_acceptable', 'this API answers only with application/json');
}

/** True when Accept names application/problem+json with a non-zero weight. */
export function wantsProblemJson(accept: string | undefined): boolean {
  if (accept === undefined || !accept.includes('problem+json')) return false;
  return parseAccept(accept).some((range) => range.type === 'application/problem+json' && range.quality > 0);
}

/**
 * True when the client weighs text/html above JSON (application/json or problem+json): a browser navigating to the
 * address.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (accept === undefined || !/text\//i.test(accept)) return false;
  const ranges = parseAccept(accept);
  return (
    qualityOf(ranges, 'text/html') >
    Math.max(qualityOf(ranges, 'application/json'), qualityOf(ranges, 'application/problem+json'))
  );
}

/** Throws 406 unless the client accepts text/html (for an address that answers only with a page). */
export function requireHtmlAcceptable(accept: string | undefined): void {
  if (accept === undefined || takesAnything(accept) || qualityOf(parseAccept(accept), 'text/html') > 0) return;
  throw new HttpError('not_acceptable', 'this address answers only with text/html (the API itself is under /v1)');
}

/**
 * True when the client names text/event-stream (an EventSource does): the change feed then answers as a stream
 * (WHATWG HTML §9.2).
 */
export function wantsEventStream(accept: string | undefined): boolean {
  if (accept === undefined || !accept.toLowerCase().includes('text/event-stream')) return false;
  return qualityOf(parseAccept(accept), 'text/event-stream') > 0;
}
