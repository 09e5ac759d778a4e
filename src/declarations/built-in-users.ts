// The built-in `users` collection, in the declaration format (README: Your own resources,
// Records): it is who logs in, so every server has it with these fields. A declaration
// may add properties, names and stricter access to it (check-declaration.ts refuses the
// rest; compile-declaration.ts merges what it adds).

import type { Audience, Operation } from '../resources/definition.ts';
import type { CollectionDeclaration, PropertySchema } from './declaration.ts';

export const BUILT_IN_USER_ACCESS: Readonly<Record<Operation, Audience>> = {
  list: 'admin',
  read: 'owner',
  create: 'admin',
  update: 'owner',
  delete: 'owner',
};

/** The property of a user an identity provider's token made (README: Provider tokens): its `iss` and `sub`. */
export const PROVIDER_IDENTITY = 'provider_identity';

export const BUILT_IN_USER_PROPERTIES: Readonly<Record<string, PropertySchema>> = {
  name: { type: 'string', minLength: 1, maxLength: 100, 'x-sort': true, 'x-search': true },
  email: {
    type: 'string',
    format: 'email',
    maxLength: 254,
    'x-unique': 'ignore-case',
    'x-filter': true,
    'x-sort': true,
    description: "Required of a request; a user an identity provider's token made may have none.",
  },
  password: { type: 'string', format: 'password', writeOnly: true, minLength: 8, maxLength: 200 },
  role: { enum: ['user', 'admin'], default: 'user', 'x-admin-only': true, 'x-filter': true, 'x-sort': true },
  /** An OpenID Connect provider's person: the token's `iss` and `sub` (README: Provider tokens). */
  provider_identity: {
    type: 'string',
    readOnly: true,
    maxLength: 2000,
    pattern: '^https?://[^ ]+ .+$',
    'x-unique': true,
    description: "For a user an identity provider's token made: the provider's issuer and the person's subject.",
  },
};

export const BUILT_IN_USERS: CollectionDeclaration = {
  singular: 'user',
  access: BUILT_IN_USER_ACCESS,
  properties: BUILT_IN_USER_PROPERTIES,
  required: ['name', 'email'],
  names: {
    pt: { collection: 'usuarios', singular: 'usuario', properties: { name: 'nome', password: 'senha', role: 'papel' } },
  },
};

/**
 * Required properties a request must give but a user the server makes may lack: an identity provider's token without
 * an email makes a user without one (README: Provider tokens).
 */
export const REQUIRED_OF_REQUESTS_ONLY: readonly string[] = ['email'];

/** How strict each audience is, for "users' access may only be made stricter". */
export const AUDIENCE_RANK: Readonly<Record<Audience, number>> = { public: 0, user: 1, owner: 2, admin: 3 };

/**
 * The JSON type of a built-in user field (`role`, an enum of strings, is a string), or undefined for a declared one.
 */
export function builtInUserType(name: string): string | undefined {
  const schema = Object.hasOwn(BUILT_IN_USER_PROPERTIES, name) ? BUILT_IN_USER_PROPERTIES[name] : undefined;
  // The built-in fields each declare one type (none takes null).
  return schema === undefined ? undefined : typeof schema.type === 'string' ? schema.type : 'string';
}
