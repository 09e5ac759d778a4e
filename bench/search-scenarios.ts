// The search comparison of `npm run bench` (issue 23: a search should cost about what a
// filtered list costs at 100,000 records, "not a scan per request"): two scenarios at the
// largest size, `q` with two words and pages of a category, each through many different
// targets so that the server's page cache answers neither; one request of each asked
// once before the load, for what it matches; and their table in the report.

import { BENCH_CATEGORIES, searchQueries } from './bench-data.ts';
import { formatTable } from './bench-support.ts';
import type { LoadRequest } from './load-generators.ts';
import type { Cell, ScenarioName, SearchExample, SizeMeasurement } from './targets.ts';
import { megabytes, throughputRatio } from './targets.ts';

/** A scenario of http-bench.ts, measured with the most connections only (where the target judges it). */
export interface SearchScenario {
  readonly name: ScenarioName;
  readonly request: LoadRequest;
  readonly judgedOnly: true;
}

/** Distinct request targets per search scenario: more than the server's page cache holds, so every page is computed. */
const SEARCH_TARGETS = 1000;
/** The pages plainrest's page cache keeps (src/http/page-cache.ts MAX_PAGES). */
const PAGE_CACHE_SIZE = 256;

/**
 * Search against the list it should cost as much as (issue 23): `q` with two words (an
 * adjective in ~10% of the products, a noun in ~1%, both in ~0.1%), and pages of a list
 * filtered by category. Each goes through 1,000 different targets in turn, so neither is
 * answered from the page cache: both pay for the query, the page and its serialisation.
 * (Below 20,000 products the categories have fewer pages than that, and some of theirs
 * come from the cache: the smoke run's comparison means little.) The reference answers
 * its precomputed page to both.
 */
export function searchScenarios(size: number, authorization: string): SearchScenario[] {
  const headers = { Authorization: authorization };
  return [
    {
      name: 'GET search',
      judgedOnly: true,
      request: {
        method: 'GET',
        path: '/v1/products?q=<adjective>+<noun>&limit=20',
        paths: searchPaths(),
        headers,
        expect: 200,
      },
    },
    {
      name: 'GET by category',
      judgedOnly: true,
      request: {
        method: 'GET',
        path: '/v1/products?category=<category>&limit=20&page=<n>',
        paths: categoryPaths(size),
        headers,
        expect: 200,
      },
    },
    {
      name: 'GET by categories (in)',
      judgedOnly: true,
      request: {
        method: 'GET',
        path: '/v1/products?category[in]=<category>,<category>&limit=20&page=<n>',
        paths: categoryPairPaths(size),
        headers,
        expect: 200,
      },
    },
  ];
}

/**
 * Pages of 20 of two categories at once (`category[in]=a,b`, README: Lists), each pair of neighbouring categories in
 * turn, as many targets as categoryPaths: its equality buckets merged, where a scan would visit every product.
 */
function categoryPairPaths(size: number): string[] {
  const pairs = BENCH_CATEGORIES.map((category, index) => [
    category,
    BENCH_CATEGORIES[(index + 1) % BENCH_CATEGORIES.length] as string,
  ]);
  const pagesPerPair = Math.max(
    1,
    Math.min(Math.ceil(SEARCH_TARGETS / pairs.length), Math.floor((2 * size) / BENCH_CATEGORIES.length / 20)),
  );
  return Array.from({ length: pagesPerPair }, (_, page) =>
    pairs.map(([first, second]) => `/v1/products?category[in]=${first},${second}&limit=20&page=${page + 1}`),
  ).flat();
}

/** The search targets: 1,000 adjective-and-noun pairs. */
function searchPaths(): string[] {
  return searchQueries(SEARCH_TARGETS).map((q) => `/v1/products?q=${q}&limit=20`);
}

/** Pages of 20 of each category in turn, up to 1,000 targets, as many as `size` products fill. */
function categoryPaths(size: number): string[] {
  const pagesPerCategory = Math.max(
    1,
    Math.min(Math.ceil(SEARCH_TARGETS / BENCH_CATEGORIES.length), Math.floor(size / BENCH_CATEGORIES.length / 20)),
  );
  return Array.from({ length: pagesPerCategory }, (_, page) =>
    BENCH_CATEGORIES.map((category) => `/v1/products?category=${category}&limit=20&page=${page + 1}`),
  ).flat();
}

/**
 * How many products one search and one category page match (their `meta.total`), asked
 * once before the load: the first search also builds the word index, timed here.
 */
export async function searchExamples(url: string, authorization: string): Promise<SearchExample[]> {
  const [pair = ''] = searchQueries(1);
  const noun = pair.split('+')[1] ?? '';
  const targets = [
    `/v1/products?q=${pair}&limit=20`,
    `/v1/products?q=${noun}&limit=20`,
    `/v1/products?category=${BENCH_CATEGORIES[0]}&limit=20`,
    `/v1/products?category[in]=${BENCH_CATEGORIES[0]},${BENCH_CATEGORIES[1]}&limit=20`,
  ];
  const examples: SearchExample[] = [];
  for (const target of targets) {
    const started = performance.now();
    const answer = await fetch(`${url}${target}`, { headers: { Authorization: authorization } });
    const body = (await answer.json()) as { meta?: { total?: number } };
    if (answer.status !== 200 || typeof body.meta?.total !== 'number')
      throw new Error(`GET ${target} answered ${answer.status}`);
    examples.push({ target, total: body.meta.total, firstMs: performance.now() - started });
  }
  return examples;
}

/** Search against a category's pages at the largest size: what the requests match, their rates, and the word index's memory. */
export function printSearch(size: SizeMeasurement, connections: number): void {
  const search = size.search;
  if (search === undefined) return;
  const cellOf = (name: ScenarioName): Cell | undefined =>
    size.cells.find((cell) => cell.scenario === name && cell.connections === connections);
  const targets = [searchPaths().length, categoryPaths(size.size).length, categoryPairPaths(size.size).length];
  const cached = targets.some((count) => count <= PAGE_CACHE_SIZE)
    ? ` — fewer than the ${PAGE_CACHE_SIZE} pages the cache holds: not comparable`
    : '';
  console.log(
    `\nSearch at ${size.size.toLocaleString('en')} products, ${connections} connections, ${targets.join(' and ')} different targets in turn${cached}`,
  );
  console.log(
    formatTable(
      ['example request', 'matches', 'first answer ms'],
      search.examples.map((example) => [
        example.target,
        example.total.toLocaleString('en'),
        example.firstMs.toFixed(0),
      ]),
    ),
  );
  const rows = (['GET search', 'GET by category', 'GET by categories (in)'] as const).map((name) => {
    const cell = cellOf(name);
    return cell === undefined
      ? [name, 'n/a', 'n/a', 'n/a']
      : [
          name,
          cell.plainrest.requestsPerSecond.toFixed(0),
          cell.reference.requestsPerSecond.toFixed(0),
          throughputRatio(cell).toFixed(2),
        ];
  });
  console.log(formatTable(['scenario', 'plainrest req/s', 'reference req/s (its precomputed page)', 'ratio'], rows));
  const searchCell = cellOf('GET search');
  const categoryCell = cellOf('GET by category');
  if (searchCell !== undefined && categoryCell !== undefined) {
    const drifting = searchCell.plainrest.requestsPerSecond / categoryCell.plainrest.requestsPerSecond;
    console.log(
      `search ÷ by category: ${(throughputRatio(searchCell) / throughputRatio(categoryCell)).toFixed(2)} as ratios to the reference, ${drifting.toFixed(2)} in raw req/s`,
    );
  }
  console.log(
    `plainrest RSS before the first search ${megabytes(search.rssBeforeMegabytes)}, after it (it built the word index) ${megabytes(search.rssWithIndexMegabytes)}, ` +
      `after the search load ${megabytes(search.rssAfterMegabytes)}`,
  );
}
