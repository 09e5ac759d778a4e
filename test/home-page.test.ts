// The home page over HTTP (the browser test drives it in Chromium): `/` and `/v1` for a
// client that prefers HTML serve one self-contained page generated from the OpenAPI
// document, under a Content-Security-Policy whose hashes match the inline script and
// style; the JSON API answers exactly as before. Plus unit checks of the parts.

import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { after, before, describe, it } from 'node:test';
import { runInNewContext, Script } from 'node:vm';
import { EXPLORER_SCRIPT } from '../src/home/explorer-script.ts';
import { EVENT_STREAM_PARSER } from '../src/home/live-changes-script.ts';
import { renderHomePage } from '../src/home/home-page.ts';
import type { OpenApiView } from '../src/home/openapi-view.ts';
import { escapeHtml, examplePath } from '../src/home/reference-html.ts';
import { SITUATION_MEANINGS, STATUS_MEANINGS } from '../src/home/status-meanings.ts';
import { prefersHtml } from '../src/http/negotiation.ts';
import { assertEmpty, assertJson, assertProblem, STRONG_ETAG } from './assertions.ts';
import { EXAMPLE } from './example-definitions.ts';
import type { TestResponse, TestServer } from './helpers.ts';
import { startTestServer } from './helpers.ts';

/** What a browser sends when it opens an address. */
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8';

function sha256Source(text: string): string {
  return `'sha256-${createHash('sha256').update(text).digest('base64')}'`;
}

/** The text of every element `tag` (with exactly these attributes) in the page. */
function elements(html: string, openingTag: string, closingTag: string): string[] {
  const found: string[] = [];
  let start = html.indexOf(openingTag);
  while (start !== -1) {
    const end = html.indexOf(closingTag, start);
    found.push(html.slice(start + openingTag.length, end));
    start = html.indexOf(openingTag, end);
  }
  return found;
}

describe('home page over HTTP', () => {
  let api: TestServer;
  let page: TestResponse;
  /** The page and the index need no token: every request here goes without one. */
  let visitor: TestServer;
  let openApi: { paths: Record<string, Record<string, { summary?: string; responses?: Record<string, unknown> }>> };

  before(async () => {
    api = await startTestServer();
    visitor = api.as(undefined);
    page = await visitor.get('/', { Accept: BROWSER_ACCEPT });
    openApi = (await api.get('/v1/openapi.json')).body;
  });
  after(() => api.close());

  it('GET / serves the page without a token, with the headers that keep it safe', () => {
    assert.equal(page.status, 200);
    assert.equal(page.headers.get('content-type'), 'text/html; charset=utf-8');
    assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
    assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
    assert.equal(page.headers.get('cache-control'), 'no-cache');
    assert.equal(page.headers.get('vary'), 'Accept, Accept-Encoding');
    assert.match(page.headers.get('etag') ?? '', STRONG_ETAG);
    assert.notEqual(page.headers.get('x-request-id'), null);
    // The test client asks for gzip, as fetch does: the page goes out compressed.
    assert.equal(page.headers.get('content-encoding'), 'gzip');
    assert.ok(Number(page.headers.get('content-length')) < Buffer.byteLength(page.text) / 3);
    assert.ok(page.text.startsWith('<!doctype html>\n<html lang="en">'));
  });

  it('its Content-Security-Policy allows exactly the inline script and style, and nothing else', () => {
    const scripts = elements(page.text, '<script>', '</script>');
    const styles = elements(page.text, '<style>', '</style>');
    assert.equal(scripts.length, 1, 'one executable script');
    assert.equal(styles.length, 1, 'one stylesheet');
    assert.equal(
      page.headers.get('content-security-policy'),
      [
        "default-src 'none'",
        `script-src ${sha256Source(scripts[0] as string)}`,
        `style-src ${sha256Source(styles[0] as string)}`,
        "connect-src 'self'",
        'img-src data:',
        "form-action 'none'",
        "base-uri 'none'",
        "frame-ancestors 'none'",
        "require-trusted-types-for 'script'",
      ].join('; '),
    );
    // No inline event handlers or style attributes, which the policy would block; nothing fetched from elsewhere.
    assert.doesNotMatch(page.text, /\son[a-z]+=/i);
    assert.doesNotMatch(page.text, /\sstyle=/i);
    // (A URL the page shows as text, such as a webhook's example url, fetches nothing.)
    assert.doesNotMatch(page.text, /\ssrc=|\s(?:href|action)=["']?(?:https?:)?\/\//i);
    // It documents every parameter of every operation in both vocabularies (range filters and operators included), the
    // webhooks and their deliveries once: about 170 kB, uncompressed (some 22 kB gzipped).
    assert.ok(Buffer.byteLength(page.text) < 185_000, `at most about 170 kB (${Buffer.byteLength(page.text)} bytes)`);
  });

  it('the data block for the script holds every status meaning and cannot close its element', () => {
    const [data] = elements(page.text, '<script type="application/json" id="explorer-data">', '</script>');
    assert.ok(data !== undefined);
    assert.ok(!data.includes('<'));
    const parsed = JSON.parse(data) as {
      meanings: Record<string, { title: string; meaning: string }>;
      situations: Record<string, string>;
      tokensPath: string;
      serverFields: string[];
      editablePaths: string[];
      feeds: Record<string, string>;
    };
    assert.equal(parsed.tokensPath, '/v1/tokens');
    // The live changes panel follows the change feed in the vocabulary the reference shows.
    assert.deepEqual(parsed.feeds, { en: '/v1/events', pt: '/v1/eventos' });
    // What an edit leaves out: the fields the schema of every record a PATCH answers with marks readOnly, in both
    // vocabularies (`_embedded` too: a read with embed adds it); not those of records never patched (a delivery's
    // status is the server's, an order's is not).
    assert.deepEqual(parsed.serverFields, [
      '_embedded',
      'atualizado_em',
      'created_at',
      'criado_em',
      'disabled_reason',
      'id',
      'provider_identity',
      'total',
      'updated_at',
      'user_id',
      'usuario_id',
    ]);
    // The paths a PATCH may change, for the explorer's "Edit it" step: every item's but an API key's.
    const editable = parsed.editablePaths.map((pattern) => new RegExp(pattern));
    for (const path of ['/v1/products/7', '/v1/usuarios/1', '/v1/users/1/orders/3'])
      assert.ok(
        editable.some((pattern) => pattern.test(path)),
        path,
      );
    for (const path of ['/v1/users/1/keys/2', '/v1/usuarios/1/chaves/2', '/v1/products'])
      assert.ok(!editable.some((pattern) => pattern.test(path)), path);
    assert.deepEqual(Object.keys(parsed.meanings).map(Number), [...STATUS_MEANINGS.keys()]);
    assert.deepEqual(parsed.meanings['201'], STATUS_MEANINGS.get(201));
    assert.deepEqual(parsed.situations, SITUATION_MEANINGS);
    // A situation names a method (and maybe a path) and a status that has a meaning of its own.
    for (const key of Object.keys(SITUATION_MEANINGS))
      assert.match(key, /^(GET|HEAD|POST|PUT|PATCH|DELETE|OPTIONS)( \/\S*)? (\d{3})$/, key);
    for (const key of Object.keys(SITUATION_MEANINGS)) assert.ok(STATUS_MEANINGS.has(Number(key.slice(-3))), key);
    for (const key of Object.keys(SITUATION_MEANINGS)) {
      const [method = '', path] = key.split(' ');
      if (path !== undefined && !/^\d{3}$/.test(path))
        assert.ok(openApi.paths[path]?.[method.toLowerCase()] !== undefined, `${key}: a documented operation`);
    }
  });

  it('describes every path and operation of the OpenAPI document, and every status each can answer', () => {
    let operations = 0;
    for (const [path, item] of Object.entries(openApi.paths)) {
      assert.ok(page.text.includes(`<code>${path}</code>`), `path ${path}`);
      for (const [method, operation] of Object.entries(item)) {
        if (method === 'parameters' || method === 'head' || method === 'options') continue; // the page shows GET and the writes
        operations += 1;
        assert.ok(
          page.text.includes(
            `<span class="method">${method.toUpperCase()}</span> <code>${path}</code> <span>${escapeHtml(operation.summary ?? '')}</span>`,
          ),
          `${method} ${path}`,
        );
        assert.ok(
          page.text.includes(`data-method="${method.toUpperCase()}" data-path="${examplePath(path)}"`),
          `Try it for ${method} ${path}`,
        );
        for (const status of Object.keys(operation.responses ?? {})) {
          if (status === 'default') continue;
          assert.ok(STATUS_MEANINGS.has(Number(status)), `a meaning for ${status}`);
        }
      }
    }
    assert.equal(elements(page.text, '<article class="operation"', '</article>').length, operations);
    // Each operation's own article links every status it can answer, and no other.
    for (const [path, item] of Object.entries(openApi.paths)) {
      for (const [method, operation] of Object.entries(item)) {
        if (method === 'parameters' || method === 'head' || method === 'options') continue;
        const heading = `<span class="method">${method.toUpperCase()}</span> <code>${path}</code>`;
        const article = page.text.slice(
          page.text.indexOf(heading),
          page.text.indexOf('</article>', page.text.indexOf(heading)),
        );
        const linked = [...article.matchAll(/href="#status-(\d+)"/g)].map((match) => match[1]);
        const documented = Object.keys(operation.responses ?? {}).filter((status) => status !== 'default');
        assert.deepEqual(linked, documented, `${method} ${path}`);
      }
    }
    // Every status linked from an operation is explained in the glossary.
    for (const [, status] of page.text.matchAll(/href="#status-(\d+)"/g))
      assert.ok(page.text.includes(`<dt id="status-${status}">`), `glossary entry ${status}`);
    for (const [status, { title }] of STATUS_MEANINGS)
      assert.ok(page.text.includes(`<dt id="status-${status}">${status} ${title}</dt>`));
  });

  it('shows the records as tables, with the write-only password and the server-set fields marked', () => {
    assert.ok(page.text.includes('<caption>A product record</caption>'));
    assert.ok(
      page.text.includes(
        '<tr><th scope="row"><code>price</code></th><td>number</td><td>0–1000000000; at most two decimals</td><td>required</td></tr>',
      ),
    );
    assert.ok(
      page.text.includes(
        '<tr><th scope="row"><code>password</code></th><td>string</td><td>8–200 characters</td><td>write-only: accepted, never shown</td></tr>',
      ),
    );
    assert.ok(page.text.includes('<tr><th scope="row"><code>preco</code></th>'), 'the Portuguese fields too');
    assert.ok(
      page.text.includes(
        '<tr><th scope="row"><code>id</code></th><td>integer</td><td>at least 1</td><td>set by the server</td></tr>',
      ),
    );
  });

  it('says who may call each operation, and pre-fills the log-in example', () => {
    // The hint is the operation's description, which ends by saying who may call it.
    const hint = (heading: string): string =>
      new RegExp(`${heading}</h4><p class="hint">([^<]*)</p>`).exec(page.text)?.[1] ?? '';
    assert.match(
      hint('<span class="method">POST</span> <code>/v1/products</code> <span>Create a product</span>'),
      / Who: an admin only\.$/,
    );
    assert.match(
      hint('<span class="method">GET</span> <code>/v1/products</code> <span>List products</span>'),
      / Who: any logged-in user\.$/,
    );
    assert.match(
      hint('<span class="method">GET</span> <code>/v1/users/\\{user_id\\}/orders</code> <span>List orders</span>'),
      / Who: the user the records belong to, or an admin\.$/,
    );
    assert.match(
      hint(
        '<span class="method">PATCH</span> <code>/v1/users/\\{user_id\\}</code> <span>Change a user \\(JSON Merge Patch\\)</span>',
      ),
      / Who: the user the record is, or an admin\.$/,
    );
    assert.ok(
      page.text.includes(
        'data-method="POST" data-path="/v1/tokens" data-query="" data-example="{&quot;email&quot;:&quot;alice@example.com&quot;,&quot;password&quot;:&quot;wonderland-42&quot;}"',
      ),
    );
  });

  it('HEAD, If-None-Match and OPTIONS work on / as on any resource', async () => {
    const head = await visitor.request('HEAD', '/');
    assert.equal(head.status, 200);
    assert.equal(head.text, '');
    assert.equal(head.headers.get('etag'), page.headers.get('etag'));
    assert.equal(head.headers.get('content-length'), page.headers.get('content-length'));

    const unchanged = await visitor.get('/', { 'If-None-Match': page.headers.get('etag') ?? '' });
    assertEmpty(unchanged, 304);
    // A 304 repeats the ETag, Cache-Control and Vary of the 200 (RFC 9110 §15.4.5), and no more.
    assert.equal(unchanged.headers.get('etag'), page.headers.get('etag'));
    assert.equal(unchanged.headers.get('cache-control'), 'no-cache');
    assert.equal(unchanged.headers.get('vary'), 'Accept, Accept-Encoding');
    assert.equal(unchanged.headers.get('content-security-policy'), null);

    const options = await visitor.request('OPTIONS', '/');
    assertEmpty(options, 204);
    assert.equal(options.headers.get('allow'), 'GET, HEAD, OPTIONS');
  });

  it('/ refuses other methods, query parameters, and clients that will not take HTML', async () => {
    const post = await visitor.request('POST', '/');
    assertProblem(post, 405, 'method_not_allowed', '/');
    assert.equal(post.headers.get('allow'), 'GET, HEAD, OPTIONS');
    assertProblem(await visitor.get('/?lang=pt'), 400, 'invalid_query', '/', [
      { field: 'lang', code: 'unknown_parameter' },
    ]);
    assertProblem(await visitor.get('/', { Accept: 'application/json' }), 406, 'not_acceptable', '/');
    assertProblem(await visitor.get('/', { Accept: 'text/html;q=0, */*' }), 406, 'not_acceptable', '/');
    for (const accept of ['text/html', '*/*', 'text/*', BROWSER_ACCEPT]) {
      assert.equal((await visitor.get('/', { Accept: accept })).status, 200, accept);
    }
  });

  it('/v1 serves the page to a client that prefers HTML, and the JSON index to every other, varying on Accept', async () => {
    const html = await visitor.get('/v1', { Accept: BROWSER_ACCEPT });
    assert.equal(html.status, 200);
    assert.equal(html.text, page.text);
    assert.equal(html.headers.get('vary'), 'Accept, Accept-Encoding');
    assert.equal(html.headers.get('etag'), page.headers.get('etag'));
    assert.equal(html.headers.get('content-security-policy'), page.headers.get('content-security-policy'));
    const unchanged = await visitor.get('/v1', {
      Accept: 'text/html',
      'If-None-Match': page.headers.get('etag') ?? '',
    });
    assertEmpty(unchanged, 304);
    assert.equal(unchanged.headers.get('vary'), 'Accept, Accept-Encoding');

    for (const accept of [undefined, '*/*', 'application/json', 'text/html;q=0.5, application/json']) {
      const json = await visitor.get('/v1', accept === undefined ? {} : { Accept: accept });
      assertJson(json, 200);
      assert.equal(json.headers.get('vary'), 'Accept, Accept-Encoding');
      assert.match(json.headers.get('etag') ?? '', STRONG_ETAG);
      assert.notEqual(json.headers.get('etag'), page.headers.get('etag'));
      assert.equal(json.body.name, 'plainrest');
      assert.equal(json.body.links.self, '/v1');
    }
    const index = await visitor.get('/v1');
    const indexUnchanged = await visitor.get('/v1', { 'If-None-Match': index.headers.get('etag') ?? '' });
    assertEmpty(indexUnchanged, 304);
    assert.equal(indexUnchanged.headers.get('etag'), index.headers.get('etag'));
    assert.equal(indexUnchanged.headers.get('vary'), 'Accept, Accept-Encoding');
    assertProblem(await visitor.get('/v1', { Accept: 'text/plain' }), 406, 'not_acceptable', '/v1');
    assertProblem(await visitor.get('/v1?x=1', { Accept: BROWSER_ACCEPT }), 400, 'invalid_query', '/v1', [
      { field: 'x', code: 'unknown_parameter' },
    ]);
  });

  it('the API itself still answers JSON to a browser', async () => {
    const list = await api.get('/v1/products', { Accept: BROWSER_ACCEPT });
    assertJson(list, 200);
    assert.equal(list.headers.get('content-security-policy'), null);
  });

  it('the OpenAPI document describes / and the HTML form of /v1', () => {
    const home = openApi.paths['/']?.['get'] as {
      security: unknown[];
      responses: Record<string, { content?: Record<string, unknown> }>;
    };
    assert.deepEqual(home.security, []);
    assert.deepEqual(Object.keys(home.responses['200']?.content ?? {}), ['text/html']);
    assert.deepEqual(Object.keys(home.responses).sort(), ['200', '304', '400', '406', '429', 'default']);
    const index = openApi.paths['/v1']?.['get'] as { responses: Record<string, { content?: Record<string, unknown> }> };
    assert.deepEqual(Object.keys(index.responses['200']?.content ?? {}), ['application/json', 'text/html']);
  });
});

describe('home page parts', () => {
  it('escapeHtml escapes the five characters that matter in text and quoted attributes', () => {
    assert.equal(
      escapeHtml(`<a href="x" title='y'>&</a>`),
      '&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;/a&gt;',
    );
  });

  it('examplePath fills every path parameter with 1', () => {
    assert.equal(examplePath('/v1/users/{user_id}/orders/{order_id}'), '/v1/users/1/orders/1');
    assert.equal(examplePath('/v1/products'), '/v1/products');
  });

  it('prefersHtml: only when text/html weighs more than JSON', () => {
    const cases: [string | undefined, boolean][] = [
      [undefined, false],
      ['*/*', false],
      ['application/json', false],
      ['text/html', true],
      [BROWSER_ACCEPT, true],
      ['text/html, application/json', false],
      ['text/html;q=0.9, application/json;q=0.8', true],
      ['application/json;q=0.1, text/*', true],
      ['text/html;q=0', false],
      ['TEXT/HTML', true],
      ['application/problem+json, text/html;q=0.5', false],
    ];
    for (const [accept, expected] of cases) assert.equal(prefersHtml(accept), expected, String(accept));
  });

  it('text from the document is escaped in the page', () => {
    const document: OpenApiView = {
      info: { title: '<script>alert(1)</script>', description: 'a "quoted" & <b>bold</b> API' },
      paths: { '/x': { get: { summary: '<img src=x>', security: [], responses: { '200': { description: '<i>' } } } } },
      components: { schemas: {} },
    };
    const html = renderHomePage(document, EXAMPLE);
    assert.ok(!html.includes('<script>alert(1)'));
    assert.ok(!html.includes('<img src=x>'));
    assert.ok(!html.includes('<b>bold</b>'));
    assert.ok(html.includes('&lt;script&gt;alert(1)&lt;/script&gt;'));
    assert.ok(html.includes('<span>&lt;img src=x&gt;</span>'));
    assert.ok(html.includes('<a href="#status-200">200</a> (&lt;i&gt;)'));
  });

  it('the explorer script is valid JavaScript', () => {
    assert.doesNotThrow(() => new Script(EXPLORER_SCRIPT, { filename: 'explorer-script.js' }));
  });

  it('the live panel reads an event stream as it arrives, however it is cut (WHATWG HTML §9.2.6)', () => {
    type Dispatched = { type: string; data: string; lastEventId: string };
    type Parser = { feed(text: string): void; lastEventId: string; retry: number | undefined };
    const eventStreamParser = runInNewContext(`${EVENT_STREAM_PARSER}; eventStreamParser`) as (
      dispatch: (event: Dispatched) => void,
      lastEventId?: string,
    ) => Parser;
    // CRLF, LF and CR line ends; a comment; a heartbeat's id alone; a field without a colon; data on two lines; a block without data.
    const stream =
      'retry: 1000\r\n\r\n: keep-alive\r\nid: 7\r\n\r\nid: 8\nevent: created\ndata: {"id":8}\n\ndata:first\ndata\ndata: second\n\nevent: empty\n\nid: 9\revent: closed\rdata: {}\r\r';
    const expected = [
      { type: 'created', data: '{"id":8}', lastEventId: '8' },
      { type: 'message', data: 'first\n\nsecond', lastEventId: '8' },
      { type: 'closed', data: '{}', lastEventId: '9' },
    ];
    for (const size of [1, 2, 3, 7, stream.length]) {
      const events: Dispatched[] = [];
      const parser = eventStreamParser((event) => events.push({ ...event }), '3');
      assert.equal(parser.lastEventId, '3', 'it starts from the last id of the previous connection');
      for (let start = 0; start < stream.length; start += size) parser.feed(stream.slice(start, start + size));
      assert.deepEqual(events, expected, `in pieces of ${size}`);
      assert.equal(parser.lastEventId, '9');
      assert.equal(parser.retry, 1000);
    }
    const heartbeat = eventStreamParser(() => assert.fail('a comment and an id dispatch nothing'));
    heartbeat.feed(': keep-alive\nid: 7\n\n');
    assert.equal(heartbeat.lastEventId, '7', "a heartbeat's id alone moves the position to resume from");
  });
});
