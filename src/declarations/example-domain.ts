// The example domain (README: The example domain): users, their orders and products,
// declared in data/example/resources.json like any other resources, plus the one typed
// hook that prices orders (orders.ts). It is served when no declaration is named.

import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import type { ResourceTable } from '../resources/definition.ts';
import { parseDeclaration } from './load-declaration.ts';
import { priceOrder } from '../resources/orders.ts';

/** The example's declaration, relative to this module in both `src/declarations/` and `dist/declarations/`. */
export const EXAMPLE_DECLARATION = fileURLToPath(new URL('../../data/example/resources.json', import.meta.url));

let example: ResourceTable | undefined;

/** The example domain, compiled once per process (it never changes). */
export function exampleResources(): ResourceTable {
  example ??= parseDeclaration('resources.json', readFileSync(EXAMPLE_DECLARATION, 'utf8'), { orders: priceOrder });
  return example;
}
