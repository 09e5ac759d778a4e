// The declaration an import writes (README: Moving in from json-server): a collection per list (a singleton per
// object), its properties in the order the file has them, `required` when every record holds one, and the access
// `--access` chose; `users` join the built-in users, whose password (or its hash) a file may not set.

import type { CollectionDeclaration, PropertySchema } from '../declarations/declaration.ts';
import { BUILT_IN_USER_PROPERTIES } from '../declarations/built-in-users.ts';
import type { Access } from '../resources/definition.ts';
import type { Source } from './file-collections.ts';
import type { Findings } from './infer-schema.ts';
import type { Property } from './properties.ts';
import { singularOf } from './names.ts';
import { originalNames } from './original-names.ts';

/** Who may do what with the imported collections (`--access`). */
export type ImportAccess = 'open' | 'read' | 'closed';

export const ACCESS_CHOICES: Readonly<Record<ImportAccess, { access?: Access; words: string }>> = {
  open: {
    access: { list: 'public', read: 'public', create: 'public', update: 'public', delete: 'public' },
    words: 'open: anyone may list, read, create, change and delete, with no token, as json-server allows',
  },
  read: {
    access: { list: 'public', read: 'public', create: 'admin', update: 'admin', delete: 'admin' },
    words: 'read: anyone may list and read with no token; only admins create, change and delete',
  },
  closed: { words: 'closed: listing and reading need a token; only admins create, change and delete' },
};

/** Users' built-in properties an import takes as they are. */
const USER_FIELDS_KEPT = new Set(['name', 'email', 'role']);
/** What plainrest keeps of users' passwords itself: a file's would be shown, and taken for a hash. */
const USER_FIELDS_STORED = new Set(['password_hash']);

/** A collection's declaration: its properties in the file's order, `required`, the access chosen. */
export function collectionDeclaration(
  source: Source,
  found: readonly Property[],
  access: ImportAccess,
  findings: Findings,
): CollectionDeclaration {
  const properties: Record<string, PropertySchema> = {};
  const required: string[] = [];
  const users = source.name === 'users';
  for (const property of found) {
    if (property.timestamp === true) continue;
    if (users && (Object.hasOwn(BUILT_IN_USER_PROPERTIES, property.name) || isLeftOut(source, property.name))) {
      if (isLeftOut(source, property.name))
        findings.notes.push(
          `${source.key}.${property.name}: left out: plainrest keeps users' ${property.name} itself` +
            (property.name === 'password' ? ' (only as a hash, set through the API)' : ''),
        );
      continue;
    }
    properties[property.name] = property.schema;
    // A required property of users would need a default: the administrator is made without it.
    if (property.required && !users) required.push(property.name);
  }
  const chosen = ACCESS_CHOICES[access].access;
  const timestamps = found.filter((property) => property.timestamp === true).map((property) => property.name);
  // A user's role is built in (every user has one): recorded where the file's users had it, for the export.
  const recorded = originalNames(source, properties, timestamps, users ? ['role'] : []);
  const names = recorded === undefined ? {} : { 'x-json-server': recorded };
  if (users) {
    if (access !== 'closed')
      findings.notes.push(
        `${source.key}: users keep their own access (admins list and create them; each reads and changes their own)`,
      );
    return { singular: 'user', properties, ...names };
  }
  if (source.singleton === true) {
    // Read and updated only: a singleton is never listed, created by POST or deleted.
    const access = chosen === undefined ? {} : { access: { read: chosen.read, update: chosen.update } };
    return {
      singular: source.name,
      'x-singleton': true,
      ...access,
      properties,
      ...(required.length > 0 ? { required } : {}),
      ...names,
    };
  }
  return {
    singular: singularOf(source.name),
    ...(source.ids.kind === 'integer' ? {} : { 'x-id': source.ids.kind }),
    ...(chosen === undefined ? {} : { access: chosen }),
    properties,
    ...(required.length > 0 ? { required } : {}),
    ...names,
  };
}

/** A built-in property of users a file's users may not set: a password (kept as a hash), a provider identity. */
export function isLeftOut(source: Source, name: string): boolean {
  if (source.name !== 'users') return false;
  return USER_FIELDS_STORED.has(name) || (Object.hasOwn(BUILT_IN_USER_PROPERTIES, name) && !USER_FIELDS_KEPT.has(name));
}
