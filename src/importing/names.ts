// json-server's names as plainrest's (README: Moving in from json-server): collections and properties in snake_case
// (`blogPosts` → `blog_posts`, `postId` → `post_id`), and the singular noun a declaration needs (`posts` → `post`,
// `people` → `person`: resources/singular-nouns.ts), by which `movieId` is known to name a movie.

export { singularOf } from '../resources/singular-nouns.ts';

/** `postId` → `post_id`, `blog-posts` → `blog_posts`, `URLs` → `urls`; other characters are left for NAME to refuse. */
export function snakeCase(name: string): string {
  return name
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/([A-Z]+)([A-Z][a-z])/g, '$1_$2')
    .replace(/[-\s.]+/g, '_')
    .toLowerCase();
}
