// The list page cache (README: Caches), which a reader may skip: a page built once is kept under a key naming
// everything besides the records that decides its bytes (the caller and the request target: handlers/list-records.ts)
// and reused while the versions of the records it was built from are current. CACHES=false makes none (services.ts).

import { RecentlyUsed } from '../store/recently-used.ts';
import type { ListPage } from './pagination.ts';

/** Pages kept at most; one not used lately makes room for a new one (store/recently-used.ts). */
const MAX_PAGES = 256;

/**
 * Building a page is most of a list's work: GET list (a category, sort=-price) 9,763 answers/s against 3,268 with
 * CACHES=false, a page of 100 gzipped 9,299 against 790 with its compressed form kept too (bench/README.md, the caches'
 * table).
 */
export class PageCache {
  readonly #pages = new RecentlyUsed<string, { readonly version: number; readonly page: ListPage }>(MAX_PAGES);

  /** The page kept under `key` if it was built from `version` (Store.version). */
  get(key: string, version: number): ListPage | undefined {
    const kept = this.#pages.get(key);
    return kept === undefined || kept.version !== version ? undefined : kept.page;
  }

  /**
   * Keeps `page`, built from `version`, and returns it. Only pages answered 200 are kept, so a hit needs no parsing;
   * nor a permission check, which the caller (in the key) and the records above the page on its path (in the version)
   * decide.
   */
  keep(key: string, version: number, page: ListPage): ListPage {
    this.#pages.set(key, { version, page });
    return page;
  }
}
