// Which content coding an answer may be sent with (RFC 9110 §12.5.3): Accept-Encoding read with its q-values. The
// client's weights decide; between codings it weighs alike, the order of CODINGS (compression.ts) does. No field at
// all, or an empty one, means identity: the body as it is.

import { HttpError } from '../errors/errors.ts';
import type { Coding } from './compression.ts';
import { CODINGS } from './compression.ts';

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
/** Clients send the same few fields again and again: their choices are kept, up to this many. */
const MAX_REMEMBERED = 64;
const remembered = new Map<string, CodingChoice>();

export function chooseCoding(header: string | undefined): CodingChoice {
  if (header === undefined) return AS_IT_IS;
  let choice = remembered.get(header);
  if (choice === undefined) {
    choice = choiceOf(header);
    if (remembered.size >= MAX_REMEMBERED) remembered.clear();
    remembered.set(header, choice);
  }
  return choice;
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

function choiceOf(header: string): CodingChoice {
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
