// The built-in keys' one hook (README: API keys): a new key's `expires_at`, when given, must be in the future; a key
// that could never be used is refused (422) rather than made. Keys are never changed, so the hook runs on create only.

import { validationError } from '../errors/errors.ts';
import type { Fields } from '../records/json.ts';
import type { ResourceHook, WriteContext } from './definition.ts';

export const refusePastExpiry: ResourceHook = ({ next }: WriteContext): Fields => {
  const expiresAt = next['expires_at'];
  if (typeof expiresAt !== 'string') return next;
  const at = Date.parse(expiresAt);
  // RFC 3339 allows what Date cannot place in time (a leap second, an offset past 23:59): a key must know its end.
  if (!Number.isFinite(at))
    throw validationError([
      {
        field: 'expires_at',
        code: 'invalid_format',
        message: 'must be a time this server can place: 2027-06-30T00:00:00Z',
      },
    ]);
  if (at <= Date.now())
    throw validationError([{ field: 'expires_at', code: 'in_the_past', message: 'must be in the future' }]);
  return next;
};
