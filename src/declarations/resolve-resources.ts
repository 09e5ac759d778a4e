// Which resources a server serves (README: Your own resources, Embedding): the
// `resources` setting names a declaration file, or (embedding) gives the declaration as
// an object; unset, the example domain is served.

import { exampleResources } from './example-domain.ts';
import type { ResourceTable } from '../resources/definition.ts';
import type { Hooks } from './compile-declaration.ts';
import type { ResourcesDeclaration } from './declaration.ts';
import { compileObject, loadDeclarationFile } from './load-declaration.ts';

/** What the `resources` option may hold: a file's path, a declaration, or a table already compiled from one. */
export type ResourcesOption = string | ResourcesDeclaration | ResourceTable;

export async function resolveResources(
  resources: ResourcesOption | undefined,
  hooks: Hooks | undefined,
): Promise<ResourceTable> {
  if (resources === undefined) return exampleResources();
  if (typeof resources === 'string') return loadDeclarationFile(resources, hooks);
  if (isCompiled(resources)) return resources;
  return compileObject(resources, hooks);
}

function isCompiled(resources: ResourcesDeclaration | ResourceTable): resources is ResourceTable {
  return Array.isArray(resources.resources) && typeof (resources as ResourceTable).get === 'function';
}
