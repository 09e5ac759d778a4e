// json-server 0.17's dialect side by side with json-server 0.17 itself (docs/json-server.md: Serving json-server's
// dialect): the same reads and writes to both on the same files (numeric ids, camelCase and dashed names, nested
// objects, nulls, references, a singleton, text ids; uuids), compared as a client reads them (status, X-Total-Count,
// Link, Location, Content-Type, bodies: plainrest may add members, never drop or rename one); then the writes read
// back through /v1. Where plainrest differs by design, the test says so and asserts plainrest's answer.

import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { cleanUpAfterEach, scratchDirectory } from './helpers.ts';
import { assertAgree, startPair, type Pair } from './json-server-pair.ts';
import { POSTGRES_SKIP, startCluster } from './postgres-cluster.ts';

/** A blog as json-server 0.17's README has it, grown: camelCase, a dashed name, nested objects, nulls, text ids. */
const BLOG = {
  posts: [
    {
      id: 1,
      title: 'json-server',
      authorInfo: { firstName: 'Ada', homeTown: 'London' },
      views: 10,
      subtitle: null,
      tags: ['a', 'b'],
      published: true,
      createdAt: 1704164645000,
    },
    {
      id: 2,
      title: 'hello world',
      authorInfo: { firstName: 'Alan', homeTown: 'Wilmslow' },
      views: 5,
      subtitle: 'a sub',
      tags: ['b'],
      published: false,
      createdAt: 1704164646000,
    },
    {
      id: 3,
      title: 'third post',
      authorInfo: { firstName: 'Ada', homeTown: 'Paris' },
      views: 7,
      subtitle: null,
      tags: [],
      published: true,
      createdAt: 1704164647000,
    },
  ],
  comments: [
    { id: 1, body: 'some comment', postId: 1 },
    { id: 2, body: 'another one', postId: 1 },
    { id: 3, body: 'on two', postId: 2 },
  ],
  'blog-posts': [
    { id: 1, headLine: 'dashed', wordCount: 120 },
    { id: 2, headLine: 'names', wordCount: 80 },
  ],
  tags: [
    { id: 'news', label: 'News' },
    { id: 'tech', label: 'Tech' },
  ],
  profile: { name: 'typicode', siteUrl: 'https://example.com' },
};

/** Reads json-server's README lists, and more, each answered alike. */
const BLOG_READS = [
  '/posts',
  '/posts/1',
  '/posts/2?_embed=comments',
  '/posts?_embed=comments',
  '/comments?_expand=post',
  '/comments/3?_expand=post',
  '/posts?title=json-server&author=typicode',
  '/posts?id=1&id=2',
  '/posts?authorInfo.firstName=Ada',
  '/posts?tags=a,b',
  '/posts?published=true',
  '/posts?nothing=1',
  '/posts?_page=1',
  '/posts?_page=1&_limit=2',
  '/posts?_page=2&_limit=2',
  '/posts?_page=3&_limit=2',
  '/posts?_page=0&_limit=1',
  '/posts?_sort=views',
  '/posts?_sort=views&_order=desc',
  '/posts?_sort=authorInfo.firstName,views&_order=asc,desc',
  '/posts?_sort=subtitle',
  '/posts?_start=1&_end=3',
  '/posts?_start=1&_limit=1',
  '/posts?_end=2',
  '/posts?_limit=2',
  '/posts?_start=-2&_end=-1',
  '/posts?views_gte=6&views_lte=10',
  '/posts?title_gte=j',
  '/posts?id_ne=1',
  '/posts?id_ne=1&id_ne=2',
  '/posts?title_like=server',
  '/posts?title_like=^J',
  '/posts?title_like=post$&title_like=^json',
  '/posts?subtitle_like=sub',
  '/posts?missing_like=x',
  '/posts?q=WORLD',
  '/posts?q=london',
  '/posts?q=ada&_sort=views',
  '/posts/1/comments',
  '/posts/2/comments?_sort=id&_order=desc',
  '/posts/9/comments',
  '/comments?postId=1&_embed=nothing',
  '/blog-posts',
  '/blog-posts?wordCount_gte=100',
  '/blog-posts/2',
  '/tags',
  '/tags/tech',
  '/profile',
  '/db',
  '/posts/99',
  '/nothing',
  '/nothing/1',
  '/posts/1/comments/1',
];

describe("json-server's dialect side by side with json-server 0.17", () => {
  const defer = cleanUpAfterEach();
  const pair = async (data: unknown): Promise<Pair> => {
    const started = await startPair(await scratchDirectory(defer), data);
    defer(() => started.close());
    return started;
  };

  test('reads: lists, filters, pages, sorts, slices, search, embeds and expansions, records, /db, 404s', async () => {
    const both = await pair(BLOG);
    for (const path of BLOG_READS) {
      const { json, plain } = await both.both('GET', path);
      assertAgree(`GET ${path}`, json, plain);
    }
    const { json, plain } = await both.both('HEAD', '/posts?_page=1&_limit=2');
    assertAgree('HEAD /posts?_page=1&_limit=2', json, plain);
    assert.equal(plain.text, '');
  });

  test('writes: POST, PUT, PATCH, DELETE and its cascade, the singular resource; read back at /v1', async () => {
    const both = await pair(BLOG);
    const post = { title: 'new post', authorInfo: { firstName: 'Grace', homeTown: 'NYC' }, views: 1, subtitle: null };
    const writes: [string, string, unknown?][] = [
      ['POST', '/posts', { ...post, tags: ['c'], published: false }],
      ['PATCH', '/posts/4', { views: 2, authorInfo: { firstName: 'Grace', homeTown: 'Arlington' } }],
      ['PUT', '/posts/2', { ...post, title: 'replaced', tags: [], published: true }],
      ['POST', '/tags', { id: 'misc', label: 'Misc' }],
      ['POST', '/comments', { body: 'plain comment', postId: 4 }],
      ['PATCH', '/blog-posts/1', { wordCount: 121 }],
      ['PATCH', '/profile', { name: 'patched' }],
      ['PUT', '/profile', { name: 'replaced', siteUrl: 'https://example.org' }],
      ['POST', '/profile', { name: 'posted', siteUrl: 'https://example.net' }],
      ['DELETE', '/posts/1'],
      ['DELETE', '/posts/1'],
      ['DELETE', '/tags/tech'],
      ['PUT', '/posts/99', post],
      ['PATCH', '/posts/99', { views: 1 }],
      ['DELETE', '/profile'],
      ['PUT', '/posts', post],
      ['POST', '/posts/1', post],
    ];
    for (const [method, path, body] of writes) {
      const { json, plain } = await both.both(method, path, body);
      assertAgree(`${method} ${path}`, json, plain);
    }
    // The cascade: post 1's comments went with it; every list agrees afterwards.
    for (const path of ['/posts', '/comments', '/tags', '/blog-posts', '/profile', '/db']) {
      const { json, plain } = await both.both('GET', path);
      assertAgree(`GET ${path} after the writes`, json, plain);
    }
    // The same records at /v1, in the declared names.
    const v1 = await both.plain('GET', '/v1/posts/4');
    assert.equal(v1.status, 200);
    const record = v1.body as Record<string, unknown>;
    assert.deepEqual(
      { title: record['title'], author: record['author_info'], views: record['views'] },
      { title: 'new post', author: { first_name: 'Grace', home_town: 'Arlington' }, views: 2 },
    );
    const comments = (await both.plain('GET', '/v1/comments?post_id=4')).body as { data: Record<string, unknown>[] };
    assert.deepEqual(
      comments.data.map((comment) => [comment['body'], comment['post_id']]),
      [['plain comment', 4]],
    );
    assert.equal((await both.plain('GET', '/v1/comments/1')).status, 404);
    assert.equal(
      ((await both.plain('GET', '/v1/profile')).body as Record<string, unknown>)['site_url'],
      'https://example.net',
    );
  });

  test('a nested POST: the parent id from the path, in the type the file holds (json-server: as text)', async () => {
    const both = await pair(BLOG);
    const { json, plain } = await both.both('POST', '/posts/2/comments', { body: 'nested' });
    assert.equal(json.status, 201);
    assert.equal(plain.status, 201);
    assert.equal(plain.headers.location, json.headers.location);
    assert.deepEqual(json.body, { body: 'nested', postId: '2', id: 4 });
    assert.deepEqual(plain.body, { id: 4, body: 'nested', postId: 2 });
    for (const path of ['/posts/2/comments', '/posts/2?_embed=comments']) {
      const after = await both.plain('GET', path);
      assert.equal(after.status, 200);
      assert.match(after.text, /"nested"/);
    }
  });

  test("json-server's own README example, ids as text (1.x's shape): served as text, references too", async () => {
    const both = await pair({
      posts: [
        { id: '1', title: 'a title', views: 100 },
        { id: '2', title: 'another title', views: 200 },
      ],
      comments: [
        { id: '1', text: 'a comment about post 1', postId: '1' },
        { id: '2', text: 'another comment about post 1', postId: '1' },
      ],
      profile: { name: 'typicode' },
    });
    const requests: [string, string, unknown?][] = [
      ['GET', '/posts'],
      ['GET', '/posts/1?_embed=comments'],
      ['GET', '/comments?_expand=post'],
      ['GET', '/comments?postId=1'],
      ['GET', '/posts/1/comments'],
      ['GET', '/posts?views_gte=150'],
      ['PATCH', '/comments/2', { postId: '2' }],
      ['GET', '/posts/2/comments'],
      ['DELETE', '/posts/1'],
      ['GET', '/comments'],
      ['GET', '/db'],
    ];
    for (const [method, path, body] of requests) {
      const { json, plain } = await both.both(method, path, body);
      assertAgree(`${method} ${path}`, json, plain);
    }
  });

  test('uuid ids, and references to them: reads, nested reads, embeds, a cascade', async () => {
    const lists = [randomUUID(), randomUUID()].sort();
    const items = Array.from({ length: 6 }, () => randomUUID()).sort();
    const data = {
      lists: lists.map((id, index) => ({ id, name: `list ${index}`, ownerName: index === 0 ? 'ada' : null })),
      items: items.map((id, index) => ({ id, listId: lists[index % 2], text: `item ${index}`, done: index < 2 })),
    };
    const both = await pair(data);
    const reads = [
      '/lists',
      `/lists/${lists[0]}`,
      `/lists/${lists[1]}?_embed=items`,
      '/lists?_embed=items',
      '/items?_expand=list',
      `/lists/${lists[0]}/items`,
      '/items?done=true',
      `/items?listId=${lists[1]}&_sort=text&_order=desc`,
      '/items?_page=2&_limit=4',
      '/lists/not-a-uuid',
    ];
    for (const path of reads) {
      const { json, plain } = await both.both('GET', path);
      assertAgree(`GET ${path}`, json, plain);
    }
    for (const [method, path, body] of [
      ['PATCH', `/items/${items[0]}`, { done: false }],
      ['DELETE', `/lists/${lists[0]}`],
    ] as [string, string, unknown?][]) {
      const { json, plain } = await both.both(method, path, body);
      assertAgree(`${method} ${path}`, json, plain);
    }
    const { json, plain } = await both.both('GET', '/items');
    assertAgree('GET /items after the cascade', json, plain);
    assert.equal((plain.body as unknown[]).length, 3);
  });
});

describe("json-server's dialect on PostgreSQL, side by side with json-server 0.17", { skip: POSTGRES_SKIP }, () => {
  const defer = cleanUpAfterEach();

  test('the reads agree, and the writes (a cascade among them), then /v1 reads them from the database', async () => {
    const cluster = await startCluster();
    defer(() => cluster.stop());
    const database = cluster.url(await cluster.createDatabase());
    const both = await startPair(await scratchDirectory(defer), BLOG, {}, { database });
    defer(() => both.close());
    for (const path of BLOG_READS) {
      const { json, plain } = await both.both('GET', path);
      assertAgree(`GET ${path}`, json, plain);
    }
    const writes: [string, string, unknown?][] = [
      [
        'POST',
        '/posts',
        {
          title: 'new',
          authorInfo: { firstName: 'G', homeTown: 'N' },
          views: 1,
          subtitle: null,
          tags: [],
          published: true,
        },
      ],
      ['PATCH', '/posts/4', { views: 2 }],
      ['POST', '/posts/4/comments', { body: 'on four' }],
      ['DELETE', '/posts/1'],
      ['PATCH', '/profile', { name: 'patched' }],
    ];
    for (const [method, path, body] of writes) {
      const { json, plain } = await both.both(method, path, body);
      if (method === 'POST' && path.endsWith('/comments')) assert.equal(plain.status, json.status, path);
      else assertAgree(`${method} ${path}`, json, plain);
    }
    // Not /db nor /comments: the nested comment's postId is the text "4" in json-server's (the test above).
    for (const path of ['/posts', '/profile', '/posts/2?_embed=comments']) {
      const { json, plain } = await both.both('GET', path);
      assertAgree(`GET ${path} after the writes`, json, plain);
    }
    const comments = (await both.plain('GET', '/v1/comments')).body as { data: { body: string }[] };
    assert.deepEqual(
      comments.data.map((comment) => comment.body),
      ['on two', 'on four'],
    );
  });
});
