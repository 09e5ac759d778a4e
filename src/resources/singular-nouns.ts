// English nouns in the singular (README: Moving in from json-server): `posts` → `post`, `categories` → `category`,
// `movies` → `movie`, `people` → `person`, as json-server's `postId` names a post. The import names a collection's
// records by it, and json-server's dialect finds its relations by it (`/posts/1/comments` sets `postId`).

/** Plurals English does not make with -s. */
const IRREGULAR: ReadonlyMap<string, string> = new Map([
  ['people', 'person'],
  ['children', 'child'],
  ['men', 'man'],
  ['women', 'woman'],
  ['mice', 'mouse'],
  ['geese', 'goose'],
  ['feet', 'foot'],
  ['teeth', 'tooth'],
  ['indices', 'index'],
  ['criteria', 'criterion'],
  ['statuses', 'status'],
  ['buses', 'bus'],
  ['viruses', 'virus'],
  ['bonuses', 'bonus'],
  ['campuses', 'campus'],
  ['heroes', 'hero'],
  ['potatoes', 'potato'],
  ['tomatoes', 'tomato'],
  ['echoes', 'echo'],
]);
/** Words whose plural is themselves. */
const UNCOUNTED = new Set(['news', 'series', 'species', 'data', 'info', 'media', 'sheep', 'fish', 'equipment']);
/** Nouns in -ie, whose plural is -ies but not from -y (`movies`, not `movy`). */
const IE_NOUNS = new RegExp(
  '(movie|cookie|pie|tie|lie|zombie|rookie|selfie|calorie|genie|hippie|goalie|prairie|smoothie|brownie|auntie|' +
    'sortie|veggie|freebie|birdie)s$',
);

/** `posts` → `post`, `categories` → `category`, `boxes` → `box`, `people` → `person`; a word no plural stays. */
export function singularOf(collection: string): string {
  const words = collection.split('_');
  const last = words.pop() as string;
  return [...words, singularWord(last)].join('_');
}

/**
 * Whether `collection` names its records in the plural (`posts`, `blog-entries`, `news`) rather than in the singular
 * (`post`): json-server's `postId` names a record of the plural, `posts`, never of `post`.
 */
export function isPlural(collection: string): boolean {
  const last = collection.split('_').pop() as string;
  return singularWord(last) !== last || UNCOUNTED.has(last);
}

function singularWord(word: string): string {
  const irregular = IRREGULAR.get(word);
  if (irregular !== undefined) return irregular;
  if (UNCOUNTED.has(word)) return word;
  if (IE_NOUNS.test(word)) return word.slice(0, -1);
  if (/[^aeiou]ies$/.test(word)) return `${word.slice(0, -3)}y`;
  if (/(ss|x|z|ch|sh)es$/.test(word)) return word.slice(0, -2);
  if (/[^s]s$/.test(word)) return word.slice(0, -1);
  return word;
}
