// The user resource (README: Records). `POST /v1/users` answers only `{id, name}`;
// the password is write-only and kept as a salted scrypt hash; the email is unique
// ignoring case; deleting a user deletes their orders (orders declare users as parent).

import { CREATED_AT_FIELD, ID_FIELD, UPDATED_AT_FIELD, type ResourceDefinition } from './definition.js';

export const USER_ROLES = ['user', 'admin'] as const;
export type UserRole = (typeof USER_ROLES)[number];

export const users: ResourceDefinition = {
  collection: 'users',
  singular: 'user',
  owner: 'self',
  fields: [
    ID_FIELD,
    { name: 'name', type: 'string', access: 'client', required: true, min: 1, max: 100, sort: true },
    {
      name: 'email',
      type: 'email',
      access: 'client',
      required: true,
      max: 254,
      uniqueIgnoringCase: true,
      filter: true,
      sort: true,
    },
    { name: 'password', type: 'password', access: 'write-only', min: 8, max: 200, storedAs: 'password_hash' },
    { name: 'role', type: 'enum', access: 'restricted', values: USER_ROLES, default: 'user', filter: true, sort: true },
    CREATED_AT_FIELD,
    UPDATED_AT_FIELD,
  ],
  createdFields: ['id', 'name'],
};
