// The home page (GET /, and GET /v1 for a client that prefers HTML): one HTML document, generated once at start from
// the OpenAPI document, with its style and script inline and nothing else to fetch, served with a strict
// Content-Security-Policy (CSP Level 3). It teaches by use: log in, send any request, see the whole exchange with the
// meaning of its status, follow the change feed as it happens; every path it shows or sends is under the base path.

import { createHash } from 'node:crypto';
import type { Reply } from '../http/respond.ts';
import { documentReply } from '../http/respond.ts';
import type { ResourceTable } from '../resources/definition.ts';
import { feedWords } from '../events/event-query.ts';
import { vocabularyOf } from '../resources/definition.ts';
import { LANGUAGE_NAMES } from '../resources/names.ts';
import { EXPLORER_SCRIPT } from './explorer-script.ts';
import { EXPLORER_STYLE } from './explorer-style.ts';
import type { OpenApiView } from './openapi-view.ts';
import { resolve } from './openapi-view.ts';
import { escapeHtml, examplePath, namedUnder, referenceHtml } from './reference-html.ts';
import { SITUATION_MEANINGS, STATUS_MEANINGS, type StatusMeaning } from './status-meanings.ts';
import { literalPattern } from '../http/base-path.ts';

const HTML_TYPE = 'text/html; charset=utf-8';

/** `'sha256-…'`, the CSP source that allows exactly this inline text (CSP Level 3 §8.3). */
function hashSource(text: string): string {
  return `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
}

/**
 * The policy: nothing by default; the page's own script and style (by hash), requests to this origin, no forms posted,
 * no framing, Trusted Types required.
 */
function contentSecurityPolicy(script: string, style: string): string {
  return [
    "default-src 'none'",
    `script-src ${hashSource(script)}`,
    `style-src ${hashSource(style)}`,
    "connect-src 'self'",
    'img-src data:',
    "form-action 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "require-trusted-types-for 'script'",
  ].join('; ');
}

/** The path the request form starts with, and the explorer's example of one. */
const EXAMPLE_REQUEST_PATH = '/v1/products';

/** How the API works; `base` is the base path, HTML-escaped. */
const conventions = (base: string): string => `
<ul>
<li><strong>Resources have addresses.</strong> A collection (<code>${base}/v1/products</code>) lists and creates; an item
(<code>${base}/v1/products/7</code>) is read with GET, replaced with PUT, changed with PATCH and removed with DELETE.</li>
<li><strong>The status code says what happened</strong>; every one is explained under the answer and in the
<a href="#statuses">list of status codes</a>. Errors carry a JSON body (RFC 9457 problem details) naming the cause.</li>
<li><strong>Bodies are JSON</strong>, sent with <code>Content-Type: application/json</code>
(<code>application/merge-patch+json</code> for PATCH, where <code>null</code> removes a field).</li>
<li><strong>A token proves who you are</strong>: POST your email and password to <code>${base}/v1/tokens</code>, then send
<code>Authorization: Bearer &lt;token&gt;</code>. The server keeps no session.</li>
<li><strong>Lists come in pages</strong> (<code>limit</code>, <code>page</code>, <code>sort=-price</code>, filters such as
<code>category=tea</code>); the <code>Link</code> header points to the next and previous pages.</li>
<li><strong>Versions of a record have an ETag</strong>: send it back in <code>If-Match</code> to change a record only if
nobody else changed it first (else 412), or in <code>If-None-Match</code> to get 304 when your copy is current.</li>
<li><strong>Changes can be pushed to you</strong>: an administrator subscribes a URL at <code>${base}/v1/webhooks</code>;
each change is POSTed there, signed, and every attempt is listed under the subscription's <code>deliveries</code>.</li>
</ul>`;

const LOGIN = `
<section id="login" aria-labelledby="login-title">
<h2 id="login-title">1. Log in</h2>
<p>With the example data you can be <code>alice@example.com</code> (password <code>wonderland-42</code>), an ordinary
user: she may read products and read and change her own user record and orders, and gets 403 for the rest. The
administrator <code>admin@example.com</code> may do everything, including creating products; its password was
printed when the server first started, and starting the server with <code>ADMIN_PASSWORD=…</code> sets a new one.</p>
<form id="login-form" class="stack">
<label for="login-email">Email</label>
<input id="login-email" name="email" type="email" autocomplete="username" required>
<label for="login-password">Password</label>
<input id="login-password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Log in</button>
</form>
<p id="login-state" role="status" tabindex="-1">Not logged in: only the open operations answer.</p>
<button type="button" id="logout" class="secondary" hidden>Log out (forget the token)</button>
</section>`;

function requestForm(paths: readonly string[], firstPath: string): string {
  const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS']
    .map((method) => `<option>${method}</option>`)
    .join('');
  return `
<section id="try" aria-labelledby="try-title">
<h2 id="try-title">2. Send a request</h2>
<p>Press <em>Try it</em> on any operation in the <a href="#reference">reference</a> to fill this form, change what you like, and send it.</p>
<form id="request-form" class="stack">
<label for="request-method">Method</label>
<select id="request-method" name="method">${methods}</select>
<label for="request-path">Path</label>
<input id="request-path" name="path" value="${escapeHtml(firstPath)}" list="known-paths" required spellcheck="false" autocapitalize="off">
<label for="request-query">Query <span class="hint">(without the "?", such as limit=5&amp;sort=-price)</span></label>
<input id="request-query" name="query" value="limit=5" spellcheck="false" autocapitalize="off">
<label for="request-headers">Headers <span class="hint">(one "Name: value" per line; Authorization is added once you are logged in)</span></label>
<textarea id="request-headers" name="headers" rows="2" spellcheck="false" autocapitalize="off"></textarea>
<label for="request-body">Body <span class="hint">(JSON; empty for GET, HEAD and DELETE)</span></label>
<textarea id="request-body" name="body" rows="6" spellcheck="false" autocapitalize="off"></textarea>
<button type="submit">Send</button>
<p id="request-error" class="error" role="alert"></p>
</form>
<datalist id="known-paths">${paths.map((path) => `<option value="${escapeHtml(path)}"></option>`).join('')}</datalist>
</section>`;
}

const EXCHANGE = `
<section id="exchange" aria-labelledby="exchange-title">
<h2 id="exchange-title">3. The exchange</h2>
<p id="status-line" class="status" role="status" tabindex="-1">Nothing sent yet. The request you send and the server's whole answer appear here, with what its status means.</p>
<div id="exchange-parts" hidden>
<div id="follow" class="buttons"></div>
<h3>Request</h3>
<pre id="request-text"></pre>
<h3>Response</h3>
<h4>Status line and headers</h4>
<pre id="response-headers"></pre>
<div id="records" class="table-wrap" role="region" aria-label="the records of the answer" tabindex="0" hidden></div>
<h4>Body</h4>
<pre id="response-body"></pre>
</div>
</section>`;

/** The "Live changes" panel; `feed` is the change feed's path in English. */
const live = (feed: string): string => `
<section id="live" aria-labelledby="live-title">
<h2 id="live-title">4. Live changes</h2>
<p>Once logged in, follow the change feed: <code>GET ${escapeHtml(feed)}</code> with <code>Accept: text/event-stream</code> is a stream of
Server-Sent Events, one for each change to a record you may read, listed here newest first. The page reads it with fetch, as an
EventSource cannot send your token; when the connection drops it connects again with <code>Last-Event-ID</code>, the last event
it received, so no change is missed.</p>
<button type="button" id="live-toggle" aria-pressed="false" aria-controls="live-events">Start following changes</button>
<p id="live-state" role="status">Stopped.</p>
<ul id="live-events" class="live" aria-label="changes, newest first"></ul>
</section>`;

/** The change feed's path in each vocabulary the document describes (events/event-query.ts names it), under `base`. */
function feedPaths(document: OpenApiView, table: ResourceTable, base: string): Record<string, string> {
  const paths = table.languages.map((language): [string, string] => [language, `/v1/${feedWords(language).path}`]);
  return Object.fromEntries(
    paths.filter(([, path]) => document.paths[path] !== undefined).map(([language, path]) => [language, base + path]),
  );
}

function vocabularySwitch(table: ResourceTable, base: string): string {
  // The example path: the first top-level collection after users (products), else users.
  const shown =
    table.resources.find((definition) => definition.collection !== 'users' && definition.parent === undefined) ??
    (table.get('users') as NonNullable<ReturnType<ResourceTable['get']>>);
  const choices = table.languages.map((language) => {
    const example = escapeHtml(`${base}/v1/${vocabularyOf(shown, language).collection}`);
    return `<label><input type="radio" name="vocabulary" value="${language}"${language === 'en' ? ' checked' : ''}> ${LANGUAGE_NAMES[language] ?? language} (<code>${example}</code>)</label>`;
  });
  return `<fieldset><legend>Show paths and fields in</legend>${choices.join('')}</fieldset>`;
}

function statusGlossary(meanings: Readonly<Record<number, StatusMeaning>>): string {
  const entries = Object.entries(meanings).map(
    ([status, { title, meaning }]) =>
      `<dt id="status-${status}">${status} ${escapeHtml(title)}</dt><dd>${escapeHtml(meaning)}</dd>`,
  );
  return `
<section id="statuses" aria-labelledby="statuses-title">
<h2 id="statuses-title">Status codes</h2>
<dl class="statuses">${entries.join('')}</dl>
</section>`;
}

/** JSON for a <script type="application/json"> block: "<" escaped so no text can close the element. */
function scriptData(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c');
}

/** The path of the operation that hands out tokens (its operationId is createToken), under `base`. */
function tokensPath(document: OpenApiView, base: string): string {
  return (
    base +
    (Object.keys(document.paths).find((path) => document.paths[path]?.post?.operationId === 'createToken') ??
      '/v1/tokens')
  );
}

/**
 * Every field the server sets (readOnly in the schema of a record a PATCH answers with), in either vocabulary: an edit
 * leaves them out. Records no PATCH changes are left out of the count: a delivery's `status` is the server's, an
 * order's is not.
 */
function serverFields(document: OpenApiView): string[] {
  const names = new Set<string>();
  for (const item of Object.values(document.paths)) {
    const schema = item.patch?.responses['200']?.content?.['application/json']?.schema;
    if (schema === undefined) continue;
    for (const [name, property] of Object.entries(resolve(document, schema).properties ?? {}))
      if (property.readOnly === true) names.add(name);
  }
  return [...names].sort();
}

/**
 * The paths a PATCH may change, as patterns of their templates (`/v1/products/{product_id}`) under `base`: an API key
 * is not.
 */
function editablePaths(document: OpenApiView, base: string): string[] {
  return Object.entries(document.paths)
    .filter(([, item]) => item.patch !== undefined)
    .map(([template]) => `^${literalPattern(base)}${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
}

/**
 * The page for `document`, whose paths are served under `basePath` (http/base-path.ts; "" for the root): every path it
 * shows, links to or sends a request to starts with it.
 */
export function renderHomePage(document: OpenApiView, table: ResourceTable, basePath = ''): string {
  const meanings: Record<number, StatusMeaning> = {};
  for (const [status, { title, meaning }] of STATUS_MEANINGS)
    meanings[status] = { title, meaning: namedUnder(meaning, basePath) };
  const situations = Object.fromEntries(
    Object.entries(SITUATION_MEANINGS).map(([key, meaning]) => [namedUnder(key, basePath), meaning]),
  );
  const paths = Object.keys(document.paths).map((path) => basePath + examplePath(path));
  const feeds = feedPaths(document, table, basePath);
  const firstPath = basePath + EXAMPLE_REQUEST_PATH;
  const data = {
    meanings,
    situations,
    tokensPath: tokensPath(document, basePath),
    serverFields: serverFields(document),
    editablePaths: editablePaths(document, basePath),
    feeds,
    examplePath: firstPath,
  };
  const base = escapeHtml(basePath);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(document.info.title)}: API explorer</title>
<link rel="icon" href="data:,">
<style>${EXPLORER_STYLE}</style>
</head>
<body>
<a class="skip" href="#try">Skip to the request form</a>
<header>
<h1>${escapeHtml(document.info.title)} <small>API explorer</small></h1>
<p>${escapeHtml(document.info.description)} Log in, send requests, and read what each answer means.</p>
${vocabularySwitch(table, basePath)}
<nav aria-label="Sections"><ul><li><a href="#login">Log in</a></li><li><a href="#try">Send a request</a></li>
<li><a href="#exchange">The exchange</a></li><li><a href="#live">Live changes</a></li><li><a href="#reference">Reference</a></li><li><a href="#statuses">Status codes</a></li></ul></nav>
</header>
<main>
<section id="how" aria-labelledby="how-title">
<h2 id="how-title">How this API works</h2>
${conventions(base)}
</section>
${LOGIN}
${requestForm(paths, firstPath)}
${EXCHANGE}
${live(feeds['en'] ?? `${basePath}/v1/events`)}
${referenceHtml(document, table, basePath)}
${statusGlossary(meanings)}
</main>
<footer><p>JSON clients asking for <code>${base}/v1</code> get the API index as JSON; this page is for browsers.
The machine-readable description is <a href="${base}/v1/openapi.json">${base}/v1/openapi.json</a>.</p></footer>
<script type="application/json" id="explorer-data">${scriptData(data)}</script>
<script>${EXPLORER_SCRIPT}</script>
</body>
</html>
`;
}

/** The page as an answer, built once: its ETag, and the headers that keep it safe. */
export function homePageReply(document: OpenApiView, table: ResourceTable, basePath: string): Reply {
  const headers = {
    'Cache-Control': 'no-cache',
    // `/` answers 406 to a client that takes no HTML, and `/v1` serves JSON to one that prefers it.
    Vary: 'Accept',
    'Content-Security-Policy': contentSecurityPolicy(EXPLORER_SCRIPT, EXPLORER_STYLE),
    'X-Content-Type-Options': 'nosniff',
    'Referrer-Policy': 'no-referrer',
  };
  return documentReply(renderHomePage(document, table, basePath), headers, HTML_TYPE);
}
