// The example domain's resource definitions, for tests that look at one resource's
// rules, access or vocabularies directly (src/declarations/example-domain.ts compiles
// them from data/example/resources.json).

import type { ResourceTable } from '../src/resources/definition.ts';
import type { ResourceDefinition } from '../src/resources/definition.ts';
import { exampleResources } from '../src/declarations/example-domain.ts';

/** The example domain's compiled resource table. */
export const EXAMPLE: ResourceTable = exampleResources();

function definition(collection: string): ResourceDefinition {
  const found = EXAMPLE.get(collection);
  if (found === undefined) throw new Error(`the example domain has no ${collection}`);
  return found;
}

export const users: ResourceDefinition = definition('users');
export const products: ResourceDefinition = definition('products');
export const orders: ResourceDefinition = definition('orders');

/** The example domain's languages, `en` first (README: Paths). */
export const LANGUAGES: readonly string[] = ['en', 'pt'];

/**
 * The example domain's Portuguese words (README: Paths), written out here as the
 * expectation rather than read back from the compiled vocabularies: collections,
 * properties, the parent id, the timestamps and the list parameters.
 */
const PORTUGUESE: ReadonlyMap<string, string> = new Map([
  // collections
  ['users', 'usuarios'],
  ['orders', 'pedidos'],
  ['products', 'produtos'],
  // properties
  ['name', 'nome'],
  ['password', 'senha'],
  ['role', 'papel'],
  ['category', 'categoria'],
  ['price', 'preco'],
  ['description', 'descricao'],
  ['items', 'itens'],
  ['product_id', 'produto_id'],
  ['quantity', 'quantidade'],
  ['unit_price', 'preco_unitario'],
  ['status', 'estado'],
  ['user_id', 'usuario_id'],
  ['created_at', 'criado_em'],
  ['updated_at', 'atualizado_em'],
  // list parameters
  ['page', 'pagina'],
  ['limit', 'limite'],
  ['sort', 'ordenar'],
]);

/** The client-facing word of the example domain for a declared (English) one; words without a translation are shared (`id`, `email`, `total`). */
export function translate(word: string, language: string): string {
  if (language === 'en') return word;
  return PORTUGUESE.get(word) ?? word;
}
