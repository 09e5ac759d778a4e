// The records in json-server's shape (docs/json-server.md: Leaving): each collection a list under the file's name
// (x-json-server), a singleton a top-level object, members under the file's names, ids as kept (as text where the file
// wrote them so, and the references to them), created_at/updated_at only where the file had them: `plainrest export`.

import type { CollectionDeclaration, ResourcesDeclaration } from '../declarations/declaration.ts';
import { FILE_NAMES_MEMBER, fileNamesOf, toFileNames } from '../declarations/file-names.ts';
import type { JsonObject, JsonValue, StoredRecord } from '../records/json.ts';
import type { CollectionCopy } from '../store/open-database.ts';

/** A record's own timestamps, which a file has only where x-json-server names them (`createdAt`). */
const TIMESTAMPS = ['created_at', 'updated_at'];
/** What plainrest keeps of a user that no json-server file holds: the password's hash, a provider's identity. */
const USERS_OWN = ['password_hash', 'provider_identity'];

/** The file's data, and how many records each collection gave (by the file's name). */
export interface JsonServerData {
  readonly data: Readonly<Record<string, JsonValue>>;
  readonly counts: readonly (readonly [string, number | 'singleton'])[];
}

/**
 * The declaration's collections (those the import made, in its order: users only when the file had them) in the
 * file's shape; `administrator` is the email of the user the server made itself, left out.
 */
export function jsonServerData(
  declaration: ResourcesDeclaration,
  records: ReadonlyMap<string, CollectionCopy>,
  administrator: string,
): JsonServerData {
  const data: Record<string, JsonValue> = {};
  const counts: [string, number | 'singleton'][] = [];
  const namesOf = (collection: string) =>
    fileNamesOf(collection, (declaration.resources[collection] as CollectionDeclaration)[FILE_NAMES_MEMBER]);
  // json-server 1.x writes ids as text, and the references to them (`"postId": "1"`).
  const textIds = new Set(Object.keys(declaration.resources).filter((collection) => namesOf(collection).idsAsText));
  for (const [collection, declared] of Object.entries(declaration.resources)) {
    const names = namesOf(collection);
    const textReferences = new Set(
      Object.entries(declared.properties ?? {}).flatMap(([name, schema]) =>
        textIds.has(schema['x-references'] ?? schema.items?.['x-references'] ?? '') ? [name] : [],
      ),
    );
    const kept = new Set(TIMESTAMPS.filter((timestamp) => names.properties.has(timestamp)));
    // A user's role is plainrest's (every user has one): written back only where the file's users had it.
    const leftOut = collection !== 'users' ? [] : [...USERS_OWN, ...(names.properties.has('role') ? [] : ['role'])];
    // In the order the store keeps them: the file's, then each record made since, as json-server appends them.
    const stored = records.get(collection)?.records ?? [];
    const inFile = (record: StoredRecord): JsonObject => {
      const fields = Object.entries(record)
        .filter(([name]) => (!TIMESTAMPS.includes(name) || kept.has(name)) && !leftOut.includes(name))
        .map(([name, value]) => [name, textReferences.has(name) ? asText(value) : value]);
      const shaped = toFileNames(Object.fromEntries(fields), names) as JsonObject;
      return names.idsAsText && typeof record.id === 'number' ? { ...shaped, id: String(record.id) } : shaped;
    };
    if (declared['x-singleton'] === true) {
      const { id: _id, ...object } = stored[0] === undefined ? { id: 0 } : inFile(stored[0]);
      data[names.collection] = object;
      counts.push([names.collection, 'singleton']);
      continue;
    }
    const listed = collection === 'users' ? stored.filter((user) => !isAdministrator(user, administrator)) : stored;
    data[names.collection] = listed.map(inFile);
    counts.push([names.collection, listed.length]);
  }
  return { data, counts };
}

/** A reference's value, or a list of them, with each id as text. */
function asText(value: JsonValue): JsonValue {
  if (Array.isArray(value)) return value.map((item: JsonValue) => asText(item));
  return typeof value === 'number' ? String(value) : value;
}

/** The administrator the server made (ADMIN_EMAIL), which the file did not hold. */
function isAdministrator(user: StoredRecord, administrator: string): boolean {
  return user['role'] === 'admin' && typeof user['email'] === 'string' && user['email'].toLowerCase() === administrator;
}
