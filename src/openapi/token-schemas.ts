// The schemas of POST /v1/tokens (README: Authentication and permissions): the credentials it takes and the bearer
// token it answers with.

import type { ResourceDefinition } from '../resources/definition.ts';
import type { Schema } from './schemas.ts';
import { bound } from './schemas.ts';
import { EXAMPLE_CREDENTIALS } from './written-examples.ts';

/** The body of POST /v1/tokens, bounded as the users' own email and password are (resources/users.ts). */
export function credentialsSchema(users: ResourceDefinition): Schema {
  const maxLength = (name: string): number | undefined => users.fields.find((rule) => rule.name === name)?.maxLength;
  return {
    type: 'object',
    required: ['email', 'password'],
    additionalProperties: false,
    properties: {
      email: { type: 'string', minLength: 1, ...bound('maxLength', maxLength('email')) },
      password: { type: 'string', writeOnly: true, minLength: 1, ...bound('maxLength', maxLength('password')) },
    },
    examples: [EXAMPLE_CREDENTIALS],
  };
}

export const TOKEN_SCHEMA: Schema = {
  type: 'object',
  required: ['access_token', 'token_type', 'expires_in', 'user_id'],
  additionalProperties: false,
  properties: {
    access_token: { type: 'string', description: 'a JWT signed with HS256 (RFC 7519)' },
    token_type: { type: 'string', const: 'Bearer' },
    expires_in: { type: 'integer', minimum: 1, description: 'seconds the token stays valid (TOKEN_TTL_SECONDS)' },
    user_id: { type: 'integer', minimum: 1 },
  },
};
