// List pages built once per collection version (README: Caches), as a record's representation is serialised once per
// record version. A page is found by a key naming everything besides the records that decides its bytes (the caller and
// the request target: handlers/list-records.ts) and reused while the versions it was built from are current.

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

  /** The page kept under `key` if it was built from `version`. */
  get(key: string, version: number): CachedPage | undefined {
    const page = this.#pages.get(key);
    return page === undefined || page.version !== version ? undefined : page;
  }

  /**
   * Only pages answered 200 are kept, so a hit needs no parsing; nor a permission check, which the caller (in the key)
   * and the records above the page on its path (in the version) decide.
   */
  set(key: string, page: CachedPage): void {
    this.#pages.set(key, page);
  }
}
