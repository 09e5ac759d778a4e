// json-server's names as plainrest's (README: Moving in from json-server): collections and properties in snake_case
// (`blogPosts` → `blog_posts`, `postId` → `post_id`), and the singular noun a declaration needs (`posts` → `post`).

/** What a collection or property name may be: a path segment and a JSON member safe everywhere. */
export const NAME = /^[a-z][a-z0-9_]{0,62}$/;

/** `postId` → `post_id`, `blog-posts` → `blog_posts`, `URLs` → `urls`; other characters are left for NAME to refuse. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[-\s.]+/g, '_')
    .toLowerCase();
}

/** `posts` → `post`, `categories` → `category`, `boxes` → `box`; a name that is no English plural stays itself. */
export function singularOf(collection: string): string {
  if (/[^aeiou]ies$/.test(collection)) return `${collection.slice(0, -3)}y`;
  if (/(s|x|z|ch|sh)es$/.test(collection)) return collection.slice(0, -2);
  if (/[^s]s$/.test(collection)) return collection.slice(0, -1);
  return collection;
}
