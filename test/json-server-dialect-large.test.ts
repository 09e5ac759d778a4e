// json-server's dialect on a large file (docs/json-server.md: Serving json-server's dialect), side by side with
// json-server 0.17: pages the core answers itself, and filters, search and sorts the dialect applies to every record
// (read a hundred at a time through the core's lists); each answer compared, each time reported. 2,000 products (20
// of the dialect's reads a list) in npm test, 20,000 in the long run (test/long-run.ts), the size its times are told at.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { cleanUpAfterEach, scratchDirectory } from './helpers.ts';
import { assertAgree, startPair } from './json-server-pair.ts';
import { scaled } from './long-run.ts';

const PRODUCTS = scaled(2_000, 20_000);
/** A tenth as many reviews, on the first fortieth of the products. */
const REVIEWS = PRODUCTS / 10;
const COLORS = ['red', 'green', 'blue', 'black'];

function largeFile(): unknown {
  return {
    products: Array.from({ length: PRODUCTS }, (_, index) => ({
      id: index + 1,
      name: `widget ${index + 1}`,
      category: `cat${index % 10}`,
      price: Math.round(((index * 7919) % 10_000) + 1) / 100,
      inStock: index % 3 !== 0,
      details: { colorName: COLORS[index % 4] as string, weightGrams: 100 + (index % 50) },
    })),
    reviews: Array.from({ length: REVIEWS }, (_, index) => ({
      id: index + 1,
      productId: (index % (REVIEWS / 4)) + 1,
      stars: (index % 5) + 1,
      text: `review ${index + 1}`,
    })),
  };
}

describe(`json-server's dialect on ${PRODUCTS.toLocaleString('en')} records, side by side`, () => {
  const defer = cleanUpAfterEach();

  test('pages, slices, filters, search, sorts, nested reads, expansions, a cascade agree; times told', async (t) => {
    const started = performance.now();
    const both = await startPair(await scratchDirectory(defer), largeFile());
    defer(() => both.close());
    t.diagnostic(`imported and started both in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    const requests: [string, string, unknown?][] = [
      ['GET', `/products?_page=${PRODUCTS / 400}&_limit=20`],
      ['GET', `/products?_page=${PRODUCTS / 20}`],
      ['GET', `/products?_start=${PRODUCTS - 10}&_end=${PRODUCTS + 5}`],
      ['GET', '/products?_start=150&_limit=30'],
      ['GET', `/products/${(PRODUCTS * 3) / 5 + 345}`],
      ['GET', '/products?category=cat3&_sort=price,id&_order=desc,asc&_limit=5'],
      ['GET', `/products?q=widget ${PRODUCTS / 20 + 777}`],
      ['GET', '/products?price_gte=10&price_lte=10.5&_limit=10'],
      ['GET', '/products?details.colorName=red&inStock=false&_page=3'],
      ['GET', `/products?name_like=^widget ${PRODUCTS / 10 - 1}[0-9]$`],
      ['GET', '/products/20/reviews'],
      ['GET', '/reviews?_expand=product&_limit=3'],
      ['GET', '/products?id=4&id=5&_embed=reviews'],
      ['PATCH', '/products/5', { price: 1.5 }],
      ['DELETE', '/products/4'],
      ['GET', '/reviews?productId=4'],
      ['GET', '/products?_page=1&_limit=5'],
    ];
    for (const [method, path, body] of requests) {
      const before = performance.now();
      const json = await both.both(method, path, body).then((answers) => answers.json);
      const between = performance.now();
      const plain = await both.plain(method === 'PATCH' || method === 'DELETE' ? 'GET' : method, path);
      const after = performance.now();
      // Writes went to both at once above; here their results are read back (a second DELETE would be a 404).
      if (method === 'GET') assertAgree(`${method} ${path}`, json, plain);
      t.diagnostic(
        `${method} ${path}: both ${(between - before).toFixed(0)} ms; ` +
          `plainrest alone ${(after - between).toFixed(0)} ms`,
      );
    }
    const reviews = (await both.plain('GET', '/reviews?productId=4')).body as unknown[];
    assert.equal(reviews.length, 0);
  });
});
