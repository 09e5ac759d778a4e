// The built-in `keys` collection (README: API keys): long-lived credentials a user makes for programs, nested under
// users (`/v1/users/{user_id}/keys`), in the declaration format like users. Its `secret` is made by the server,
// shown once in the 201 and kept only as its hash (API_KEY_SECRET); what no declaration can say is API_KEY_TRAITS.

import { validationError } from '../errors/errors.ts';
import type { Fields } from '../records/json.ts';
import type { ResourceHook, WriteContext } from '../resources/definition.ts';
import type { CollectionDeclaration } from './declaration.ts';

/** The collection's name: its path segment, its data file and its table. */
export const API_KEYS = 'keys';

/** What a key's stored record holds, by name (auth/api-keys.ts reads them to authenticate). */
export const KEY_FIELDS = {
  user: 'user_id',
  expiresAt: 'expires_at',
  readOnly: 'read_only',
  lastUsedAt: 'last_used_at',
  /** The secret's SHA-256: what the secret is found by. */
  secretHash: 'secret_hash',
} as const;

/** A key's secret: `prk_` and 32 random bytes in base64url (auth/api-keys.ts makes them). */
export const KEY_PREFIX = 'prk_';
export const KEY_SECRET_PATTERN = '^prk_[A-Za-z0-9_-]{43}$';
const KEY_SECRET_LENGTH = 47;

/**
 * Where an RFC 3339 date-time validation accepted falls, in ms since the epoch (Date.parse, which places years 0000
 * to 9999 and any offset). A leap second (§5.7: `23:59:60` UTC at a month's end) is placed at the second after it;
 * a second 60 anywhere else is no time at all (NaN).
 */
function instantOf(dateTime: string): number {
  if (dateTime.slice(17, 19) !== '60') return Date.parse(dateTime);
  const before = Date.parse(`${dateTime.slice(0, 17)}59${dateTime.slice(19)}`);
  const after = new Date(Math.floor(before / 1000) * 1000 + 1000);
  const monthStarts =
    after.getUTCDate() === 1 && after.getUTCHours() === 0 && after.getUTCMinutes() === 0 && after.getUTCSeconds() === 0;
  return monthStarts ? before + 1000 : Number.NaN;
}

/**
 * The keys' hook: a new key's `expires_at`, when given, must be in the future: a key that could never be used is
 * refused (422 `in_the_past`, for any RFC 3339 date-time before now). A time no clock can place is `invalid_format`:
 * a second 60 that is no leap second, and a leap second to come (RFC 3339 §5.7: they are not known in advance).
 */
const refusePastExpiry: ResourceHook = ({ next }: WriteContext): Fields => {
  const expiresAt = next[KEY_FIELDS.expiresAt];
  if (typeof expiresAt !== 'string') return next;
  const at = instantOf(expiresAt);
  if (at <= Date.now())
    throw validationError([{ field: KEY_FIELDS.expiresAt, code: 'in_the_past', message: 'must be in the future' }]);
  if (!Number.isFinite(at) || expiresAt.slice(17, 19) === '60')
    throw validationError([
      {
        field: KEY_FIELDS.expiresAt,
        code: 'invalid_format',
        message: 'must be a time this server can place: 2027-06-30T00:00:00Z',
      },
    ]);
  return next;
};

/** The key's secret: made by the server on create, shown once, kept only as its SHA-256 (compile-declaration.ts). */
export const API_KEY_SECRET = { field: 'secret', storedAs: KEY_FIELDS.secretHash } as const;

/** What the keys' definition has that no declaration says: clients never change them; their expiry is checked. */
export const API_KEY_TRAITS: { readonly immutable: true; readonly hook: ResourceHook } = {
  immutable: true,
  hook: refusePastExpiry,
};

export const BUILT_IN_KEYS: CollectionDeclaration = {
  singular: 'key',
  parent: 'users',
  description:
    "A user's API key, for programs: sent as `Authorization: Bearer prk_…`, it acts as the user. Its secret is " +
    'shown once, in the answer that creates it; clients never change a key, only delete it.',
  // `update` is never asked (keys have no PUT or PATCH); the type asks for every operation.
  access: { list: 'owner', read: 'owner', create: 'owner', update: 'admin', delete: 'owner' },
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 100, 'x-sort': true, description: 'What the key is for.' },
    expires_at: {
      type: 'string',
      format: 'date-time',
      maxLength: 40,
      'x-sort': true,
      description: 'When the key stops working; absent, it works until it is deleted. It must be in the future.',
      examples: ['2099-12-31T23:59:59Z'],
    },
    read_only: {
      type: 'boolean',
      default: false,
      'x-filter': true,
      description: 'A read-only key may only read: every write with it is refused with 403.',
    },
    last_used_at: {
      type: 'string',
      format: 'date-time',
      maxLength: 40,
      readOnly: true,
      description: 'When the key was last used, to within five minutes; absent until it is.',
    },
    secret: {
      type: 'string',
      readOnly: true,
      minLength: KEY_SECRET_LENGTH,
      maxLength: KEY_SECRET_LENGTH,
      pattern: KEY_SECRET_PATTERN,
      description: 'The key itself, shown only in the answer to the POST that creates it: plainrest keeps its hash.',
    },
  },
  required: ['name'],
  names: {
    pt: {
      collection: 'chaves',
      singular: 'chave',
      properties: {
        name: 'nome',
        expires_at: 'expira_em',
        read_only: 'somente_leitura',
        last_used_at: 'usada_em',
        secret: 'segredo',
      },
    },
  },
};
