// When a webhook delivery is tried again (docs/webhooks.md: Retries): an attempt not answered 2xx within
// ATTEMPT_TIMEOUT_MS is tried again after a delay that starts at about 5 s and triples, jittered by up to a fifth
// either way, never more than an hour apart, for a day from the first attempt (Standard Webhooks: exponential backoff
// with jitter); after that the subscription is disabled.

/** An attempt answered 2xx within this time is acknowledged; one that takes longer is cut off and fails. */
export const ATTEMPT_TIMEOUT_MS = 10_000;
/** The delay before the first retry, before jitter. */
export const FIRST_RETRY_MS = 5_000;
/** Each delay is this many times the one before. */
const GROWTH = 3;
/** No two attempts are further apart than this. */
export const MAX_RETRY_SPACING_MS = 60 * 60 * 1000;
/** An event is tried for this long from its first attempt; the first attempt after it that fails is the last. */
export const RETRY_WINDOW_MS = 24 * 60 * 60 * 1000;
/** Each delay is multiplied by a factor drawn between 1 − JITTER and 1 + JITTER. */
export const JITTER = 0.2;

/**
 * The delay after the `attempts`-th failed attempt (1 for the first): FIRST_RETRY_MS × GROWTH^(attempts − 1), jittered
 * by `random` (a draw in [0, 1)), at most MAX_RETRY_SPACING_MS.
 */
export function retryDelayMs(attempts: number, random: number = Math.random()): number {
  const base = FIRST_RETRY_MS * GROWTH ** Math.min(Math.max(attempts - 1, 0), 20);
  return Math.round(Math.min(base * (1 - JITTER + 2 * JITTER * random), MAX_RETRY_SPACING_MS));
}
