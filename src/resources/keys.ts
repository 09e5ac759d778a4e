// The built-in keys' one hook (README: API keys): a new key's `expires_at`, when given, must be in the future; a key
// that could never be used is refused (422) rather than made. Keys are never changed, so the hook runs on create only.

import { validationError } from '../errors/errors.ts';
import type { Fields } from '../records/json.ts';
import type { ResourceHook, WriteContext } from './definition.ts';

export const refusePastExpiry: ResourceHook = ({ next }: WriteContext): Fields => {
  const expiresAt = next['expires_at'];
  if (typeof expiresAt === 'string' && Date.parse(expiresAt) <= Date.now())
    throw validationError([{ field: 'expires_at', code: 'in_the_past', message: 'must be in the future' }]);
  return next;
};
