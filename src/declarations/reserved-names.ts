// The names plainrest keeps for itself (README: Your own resources, Moving in from json-server): every path it serves
// under /v1 in every language it has words in (its OpenAPI document, token endpoint, batch endpoint and change feed:
// /v1/events and /v1/eventos), the names /v1's index links them by, and the collections it stores itself. The
// declaration checker, the import, vocabularies' names and the route table all read this one list.

import { LANGUAGE_NAMES } from '../resources/names.ts';
import type { Language } from '../resources/vocabulary.ts';
import { feedWords, WORDED_LANGUAGES } from '../resources/vocabulary.ts';
import { API_KEYS } from './built-in-keys.ts';
import { DELIVERIES, WEBHOOKS } from './built-in-webhooks.ts';

/** Where the API is served: every path below is under it (README: Paths). */
export const API_PREFIX = '/v1';

/** Where plainrest keeps the answers of requests sent with an Idempotency-Key: a collection of its own. */
export const IDEMPOTENCY_KEYS = 'idempotency_keys';

/** The link by which /v1's index names itself. */
const SELF_LINK = 'self';

/** A path plainrest serves under /v1 besides the collections: its kind (the name /v1 links it by) and segment. */
export interface ServedPath {
  readonly kind: 'openapi' | 'tokens' | 'events' | 'batches';
  readonly segment: string;
  /** What it is, to name it in a refusal: "change feed". */
  readonly what: string;
}

/** The paths plainrest serves under /v1 itself in `language`; only the change feed's differs between languages. */
export function servedPaths(language: Language): readonly ServedPath[] {
  return [
    { kind: 'openapi', segment: 'openapi.json', what: 'OpenAPI document' },
    { kind: 'tokens', segment: 'tokens', what: 'token endpoint' },
    { kind: 'events', segment: feedWords(language).path, what: 'change feed' },
    { kind: 'batches', segment: 'batches', what: 'batch endpoint' },
  ];
}

/**
 * /v1's own links, as its index lists them before the collections': `self`, `openapi`, `tokens`, `events`, `batches`;
 * each under `basePath` (`/api/v1/tokens`), or at the root when it is "".
 */
export function indexLinks(basePath: string): Record<string, string> {
  const links: Record<string, string> = { [SELF_LINK]: basePath + API_PREFIX };
  for (const { kind, segment } of servedPaths('en')) links[kind] = `${basePath}${API_PREFIX}/${segment}`;
  return links;
}

/**
 * Every name a collection may not take, in any vocabulary and at any depth, with what plainrest keeps it for: the
 * served paths in every language plainrest has words in (a language it has none in serves the English ones), the names
 * of /v1's links, and the collections plainrest stores itself.
 */
export const RESERVED_NAMES: ReadonlyMap<string, string> = reservedNames();

function reservedNames(): Map<string, string> {
  const reserved = new Map<string, string>();
  const keep = (name: string, reason: string): void => {
    if (!reserved.has(name)) reserved.set(name, reason);
  };
  for (const language of WORDED_LANGUAGES) {
    const inLanguage = language === 'en' ? '' : `, in ${LANGUAGE_NAMES[language] ?? `"${language}"`}`;
    for (const { kind, segment, what } of servedPaths(language)) {
      keep(segment, `plainrest serves ${API_PREFIX}/${segment} itself (its ${what}${inLanguage})`);
      keep(kind, `plainrest serves its ${what} at ${API_PREFIX}/${segment}, linked as "${kind}" from ${API_PREFIX}`);
    }
  }
  keep(SELF_LINK, `${API_PREFIX} links to itself as "${SELF_LINK}"`);
  keep(API_KEYS, `it holds users' API keys (${API_PREFIX}/users/{id}/${API_KEYS})`);
  keep(WEBHOOKS, `plainrest serves its webhook subscriptions at ${API_PREFIX}/${WEBHOOKS}`);
  keep(DELIVERIES, `it holds the deliveries of webhooks (${API_PREFIX}/${WEBHOOKS}/{id}/${DELIVERIES})`);
  keep(IDEMPOTENCY_KEYS, 'plainrest keeps the answers of requests with an Idempotency-Key under it');
  return reserved;
}

/** `"eventos" is reserved: plainrest serves /v1/eventos itself (…)`, or undefined for a name a collection may take. */
export function reservedNameProblem(name: string): string | undefined {
  const reason = RESERVED_NAMES.get(name);
  return reason === undefined ? undefined : `"${name}" is reserved: ${reason}`;
}
