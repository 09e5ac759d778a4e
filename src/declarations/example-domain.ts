// The example domain (README: The example domain): users, their orders and products,
// declared in data/example/resources.json like any other resources, plus the one typed
// hook that prices orders (orders.ts). It is served when no declaration is named.

import type { ResourceTable } from '../resources/definition.ts';
import { exampleFileText } from './example-files.ts';
import { parseDeclaration } from './load-declaration.ts';
import { priceOrder } from '../resources/orders.ts';

let example: ResourceTable | undefined;

/** The example domain, compiled once per process (it never changes). */
export function exampleResources(): ResourceTable {
  if (example !== undefined) return example;
  const text = exampleFileText('resources.json');
  if (text === undefined) throw new Error('the example declaration, data/example/resources.json, is missing');
  example = parseDeclaration('resources.json', text, { orders: priceOrder });
  return example;
}
