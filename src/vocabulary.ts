// The localized vocabulary (README: Paths): the same resources under Portuguese paths,
// with Portuguese field names in bodies, errors, Location headers and links.
// This is the one translation table; it is applied at the boundary (validation on the
// way in, representation on the way out), so handlers only ever see English names.
// Values, such as order states, are not translated.

export type Language = 'en' | 'pt';

/** English word → Portuguese word, for collections, fields and list parameters. */
const PORTUGUESE: ReadonlyMap<string, string> = new Map([
  // collections
  ['users', 'usuarios'],
  ['orders', 'pedidos'],
  ['products', 'produtos'],
  // fields
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

const ENGLISH: ReadonlyMap<string, string> = new Map([...PORTUGUESE].map(([en, pt]) => [pt, en]));

export const LANGUAGES: readonly Language[] = ['en', 'pt'];

/** The client-facing word for an internal (English) one; words without a translation are shared (`id`, `email`, `total`). */
export function translate(word: string, language: Language): string {
  if (language === 'en') return word;
  return PORTUGUESE.get(word) ?? word;
}

/** The internal (English) word for a word of either vocabulary. */
export function toEnglish(word: string): string {
  return ENGLISH.get(word) ?? word;
}
