// json-server's --read-only at /v1 too (docs/json-server.md: The flags): the declaration is served with every
// collection's create, update and delete an administrator's, so a client without an admin's token writes through
// neither dialect; the file itself is not changed. users keep their own access.

import { readFile } from 'node:fs/promises';
import type { ResourcesDeclaration } from '../declarations/declaration.ts';
import { isJsonObject } from '../records/json.ts';

const WRITES = ['create', 'update', 'delete'] as const;

/** The declaration at `path` with its writes an administrator's; the path itself when it does not read as one. */
export async function readOnlyDeclaration(path: string): Promise<ResourcesDeclaration | string> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(path, 'utf8'));
  } catch {
    return path; // the start reads it again and says what is wrong
  }
  if (!isJsonObject(parsed) || !isJsonObject(parsed['resources'] ?? null)) return path;
  const resources = parsed['resources'] as Record<string, unknown>;
  const served = Object.entries(resources).map(([name, collection]) => {
    if (name === 'users' || !isJsonObject(collection) || !isJsonObject(collection['access'] ?? null))
      return [name, collection]; // without access, writes are an administrator's already
    const access = { ...(collection['access'] as Record<string, unknown>) };
    for (const write of WRITES) if (write in access) access[write] = 'admin';
    return [name, { ...collection, access }];
  });
  return { ...parsed, resources: Object.fromEntries(served) } as unknown as ResourcesDeclaration;
}
