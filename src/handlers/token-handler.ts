// POST /v1/tokens (README: Authentication and permissions): credentials in, a bearer token out (201). Token responses
// are not cached (RFC 6749 §5.1: Cache-Control: no-store).

import { REALM } from '../auth/authenticate.ts';
import type { RequestContext } from './context.ts';
import { JSON_MEDIA_TYPES, readJsonBody } from '../http/body.ts';
import { HttpError, storeUnavailable } from '../errors/errors.ts';
import { rejectQueryParameters } from '../http/record-query.ts';
import type { Reply } from '../http/respond.ts';
import { jsonReply } from '../http/respond.ts';
import { hashOfNothingKnown, verifyPassword } from '../auth/passwords.ts';
import type { FieldRule } from '../resources/definition.ts';
import { validateBody } from '../resources/validation.ts';
import { buildVocabulary } from '../resources/vocabulary.ts';
import { PROVIDER_IDENTITY } from '../declarations/built-in-users.ts';

const CREDENTIAL_FIELDS: readonly FieldRule[] = [
  { name: 'email', type: 'string', access: 'client', required: true, minLength: 1, maxLength: 254 },
  { name: 'password', type: 'string', access: 'client', required: true, minLength: 1, maxLength: 200 },
];

const CREDENTIAL_NAMES = buildVocabulary({
  language: 'en',
  collection: 'tokens',
  singular: 'token',
  properties: new Map(),
  known: new Set(['email', 'password']),
});

export async function createToken(context: RequestContext): Promise<Reply> {
  rejectQueryParameters(context.queryString);
  const { authenticator } = context.services;
  const { store } = context;
  const body = await readJsonBody(context.req, JSON_MEDIA_TYPES, context.services.bodyLimits);
  if (typeof body['password'] === 'string') context.valuesToRedact.push(body['password']);
  const { email, password } = validateBody(CREDENTIAL_FIELDS, body, CREDENTIAL_NAMES, 'create') as {
    email: string;
    password: string;
  };

  // The administrator's password may still be being replaced (or, with a database not reached yet, created).
  const unavailable = context.services.store.unavailable;
  if (unavailable !== undefined) throw storeUnavailable(unavailable);
  await context.services.adminReady;
  const user = await store.read(() => store.findIgnoringCase('users', 'email', email));
  const storedHash = user?.['password_hash'];
  // An unknown email is checked against a hash at the cost of new ones, so that response timing does not reveal which
  // accounts exist (OWASP API2: Broken Authentication).
  const known = typeof storedHash === 'string';
  const hash = known ? storedHash : await hashOfNothingKnown(context.services.config.passwordHashCost);
  const matches = await verifyPassword(password, hash);
  if (
    user === undefined ||
    !known ||
    !matches ||
    // A user an identity provider's token made signs in there, never here (README: Provider tokens).
    user[PROVIDER_IDENTITY] !== undefined ||
    (await store.read(() => store.get('users', user.id))) === undefined
  ) {
    throw new HttpError('invalid_credentials', 'the email or the password is wrong', {
      headers: { 'WWW-Authenticate': `Bearer realm="${REALM}"` },
    });
  }
  const { token, expiresIn } = authenticator.issue(user.id as number);
  return jsonReply(
    201,
    { access_token: token, token_type: 'Bearer', expires_in: expiresIn, user_id: user.id },
    { 'Cache-Control': 'no-store' },
  );
}
