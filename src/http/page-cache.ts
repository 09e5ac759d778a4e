// List pages built once per collection version (README: Lists), as a record's representation is serialised once per
// record version. A page is found by its request target (path and query string, which also fix the vocabulary) and
// reused while the collection's version, which any committed change moves, is the one it was built from.

import { RecentlyUsed } from '../store/recently-used.ts';

export interface CachedPage {
  /** The collection version the page was built from (Store.version). */
  readonly version: number;
  readonly body: string;
  /** The body's length in bytes (UTF-8). */
  readonly length: number;
  /** Weak, from the body's bytes (RFC 9110 §8.8.1). */
  readonly etag: string;
  readonly link: string;
}

/** Pages kept at most; one not used lately makes room for a new one (store/recently-used.ts). */
const MAX_PAGES = 256;

export class PageCache {
  readonly #pages = new RecentlyUsed<string, CachedPage>(MAX_PAGES);

  /** The page for `target` if it was built from `version`. */
  get(target: string, version: number): CachedPage | undefined {
    const page = this.#pages.get(target);
    return page === undefined || page.version !== version ? undefined : page;
  }

  /**
   * Only pages whose query was valid are kept, so a hit needs no parsing; the permission and parent checks still run
   * on every request.
   */
  set(target: string, page: CachedPage): void {
    this.#pages.set(target, page);
  }
}
