// Proactive negotiation (RFC 9110 §12.5). Accept (§12.5.1): every API answer is JSON, so an Accept that excludes JSON
// gets 406 (`*/*, application/json;q=0` does); errors are problem+json when asked for (RFC 9457 §3); the home page is
// the one HTML answer. Accept-Encoding (§12.5.3): the client's q-values choose the coding, then the order of CODINGS.

import { HttpError } from '../errors/errors.ts';
import type { Coding } from './compression.ts';
import { CODINGS } from './compression.ts';

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

/** What a request's Accept-Encoding allows. */
export interface CodingChoice {
  /** The coding to compress with, or undefined: send the body as it is. */
  readonly coding: Coding | undefined;
  /** False when the client refused the body as it is (`identity;q=0`, or `*;q=0` without identity). */
  readonly identity: boolean;
}

/** A weight: 0 to 1 with at most three decimals (RFC 9110 §12.4.2). */
const QVALUE = /^(0(\.[0-9]{0,3})?|1(\.0{0,3})?)$/;

const AS_IT_IS: CodingChoice = Object.freeze({ coding: undefined, identity: true });

/** What Accept-Encoding allows: `codingChoiceOf(header)`, taken from the cache below when the field was seen lately. */
export function chooseCoding(header: string | undefined): CodingChoice {
  if (header === undefined) return AS_IT_IS;
  return rememberedChoice(header) ?? rememberChoice(header, codingChoiceOf(header));
}

/**
 * 406 before the request is served when the client refuses the body as it is and every coding plainrest has, unless
 * the answer will have no body (a DELETE's 204).
 */
export function requireSomeCodingAcceptable(header: string | undefined, method: string): void {
  if (header === undefined || method === 'DELETE') return;
  const { coding, identity } = chooseCoding(header);
  if (coding !== undefined || identity) return;
  throw new HttpError(
    'not_acceptable',
    `Accept-Encoding refuses every coding this server sends: ${[...CODINGS, 'identity'].join(', ')}`,
  );
}

/** The coding `header` weighs highest among CODINGS, and whether it accepts a body as it is (RFC 9110 §12.5.3). */
function codingChoiceOf(header: string): CodingChoice {
  const weights = new Map<string, number>();
  for (const part of header.split(',')) {
    const [name = '', ...parameters] = part.split(';');
    const coding = name.trim().toLowerCase();
    if (coding === '') continue;
    let weight = 1;
    for (const parameter of parameters) {
      const [key = '', value = ''] = parameter.split('=');
      // A weight outside RFC 9110 §12.4.2's grammar is ignored: the coding keeps weight 1.
      if (key.trim().toLowerCase() === 'q' && QVALUE.test(value.trim())) weight = Number(value.trim());
    }
    // RFC 9110 §8.4.1.3: x-gzip is gzip.
    weights.set(coding === 'x-gzip' ? 'gzip' : coding, weight);
  }
  const anyOther = weights.get('*');
  const weightOf = (coding: string): number => weights.get(coding) ?? anyOther ?? 0;
  // Identity is acceptable unless refused by name, or by `*;q=0` without being named.
  const identityWeight = weights.get('identity') ?? (anyOther === 0 ? 0 : undefined);
  let best: Coding | undefined;
  let bestWeight = 0;
  for (const coding of CODINGS) {
    const weight = weightOf(coding);
    if (weight > bestWeight) {
      best = coding;
      bestWeight = weight;
    }
  }
  // A client that weighs identity above every coding it accepts gets the body as it is.
  if (best !== undefined && identityWeight !== undefined && identityWeight > bestWeight) best = undefined;
  return { coding: best, identity: identityWeight !== 0 };
}

// The cache of coding choices. A reader may skip it: rememberedChoice(header) is codingChoiceOf(header), made earlier.

/**
 * Choices kept, by Accept-Encoding field: clients send the same few fields again and again, and each request needs its
 * choice twice (requireSomeCodingAcceptable, then negotiatedReply), so a repeat costs a Map lookup instead of
 * splitting and weighing the field. No figure in bench/README.md measures it alone. CACHES=false (README: Caches)
 * leaves it on: a choice depends on the field alone, and no answer's bytes are kept here.
 */
const MAX_REMEMBERED_CHOICES = 64;
const rememberedChoices = new Map<string, CodingChoice>();

function rememberedChoice(header: string): CodingChoice | undefined {
  return rememberedChoices.get(header);
}

/** Keeps `choice` for `header` (all are forgotten once MAX_REMEMBERED_CHOICES are kept) and returns it. */
function rememberChoice(header: string, choice: CodingChoice): CodingChoice {
  if (rememberedChoices.size >= MAX_REMEMBERED_CHOICES) rememberedChoices.clear();
  rememberedChoices.set(header, choice);
  return choice;
}
