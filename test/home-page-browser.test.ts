// The home page in a real browser: headless Chromium, driven over the DevTools protocol
// (test/chromium.ts), against one server on port 0 with the example data. Every test
// opens its own tab on `/` (freshPage), logs in through the form with the keyboard when
// it needs a token, and ends with no Content-Security-Policy violation, console error or
// exception in that tab (checked after each test). The tests share the server's data, so
// each reads what it expects (the next id, the second page) from the server rather than
// from what another test left behind.
// Screenshots at desktop (light and dark) and phone widths go to test/artifacts/
// (ARTIFACTS_DIR). Without Chromium (`.ci/run` installs Debian's package) the suite is
// skipped, and says so.

import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, afterEach, before, describe, it } from 'node:test';
import type { Page } from './chromium.ts';
import { Browser, CHROMIUM_NAMES, findChromium } from './chromium.ts';
import type { TestServer } from './helpers.ts';
import { startTestServer, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD, wrap } from './helpers.ts';
import { LIBRARY } from './declared-domains.ts';
import { REPOSITORY_ROOT } from './repository.ts';

const chromium = findChromium();
const ARTIFACTS = process.env['ARTIFACTS_DIR'] ?? join(REPOSITORY_ROOT, 'test', 'artifacts');
const SKIP =
  chromium === undefined
    ? `Chromium is not installed (looked for CHROMIUM_PATH, then ${CHROMIUM_NAMES.join(', ')} on PATH); \`.ci/run\` installs it with apt-get`
    : false;

const ALICE = { email: 'alice@example.com', password: 'wonderland-42' } as const;
const ADMIN = { email: TEST_ADMIN_EMAIL, password: TEST_ADMIN_PASSWORD } as const;
type Credentials = { readonly email: string; readonly password: string };

/** The status line's text before it was first changed. */
const NOTHING_SENT =
  "Nothing sent yet. The request you send and the server's whole answer appear here, with what its status means.";

const js = (value: unknown): string => JSON.stringify(value);
const text = (page: Page, id: string): Promise<string> =>
  page.evaluate<string>(`document.getElementById(${js(id)}).textContent`);
const value = (page: Page, id: string): Promise<string> =>
  page.evaluate<string>(`document.getElementById(${js(id)}).value`);
const focused = (page: Page): Promise<string> => page.evaluate<string>('document.activeElement?.id ?? ""');
const isHidden = (page: Page, id: string): Promise<boolean> =>
  page.evaluate<boolean>(`document.getElementById(${js(id)}).hidden`);
/** The status line's meaning (its <strong>), without the server's detail and the timing. */
const meaning = (page: Page): Promise<string> =>
  page.evaluate<string>(`document.querySelector('#status-line strong').textContent`);
/** The labels of the buttons offered after the answer. */
const followButtons = (page: Page): Promise<string[]> =>
  page.evaluate<string[]>(`[...document.querySelectorAll('#follow button')].map((button) => button.textContent)`);

/** Sets a form control's value as a script would after the user edited it (the typing itself is tested on the login form). */
function setValue(page: Page, id: string, newValue: string): Promise<void> {
  return page.evaluate(`void (document.getElementById(${js(id)}).value = ${js(newValue)})`);
}

/** Fills the whole request form. */
async function fillForm(
  page: Page,
  request: { method: string; path: string; query?: string; headers?: string; body?: string },
): Promise<void> {
  await setValue(page, 'request-method', request.method);
  await setValue(page, 'request-path', request.path);
  await setValue(page, 'request-query', request.query ?? '');
  await setValue(page, 'request-headers', request.headers ?? '');
  await setValue(page, 'request-body', request.body ?? '');
}

/** How many answers the status line has shown so far (counted by the observer freshPage installs). */
const answers = (page: Page): Promise<number> => page.evaluate<number>('window.answersShown');

/** Focuses `selector` (a button) and presses Enter on it, then waits for the next answer to show. */
async function pressAndWaitForAnswer(page: Page, selector: string): Promise<void> {
  const shown = await answers(page);
  await page.evaluate(`document.querySelector(${js(selector)}).focus()`);
  assert.equal(
    await page.evaluate(`document.activeElement === document.querySelector(${js(selector)})`),
    true,
    `${selector} takes the focus`,
  );
  await page.press('Enter');
  await page.waitFor(`window.answersShown > ${shown} || document.getElementById('request-error').textContent !== ''`);
  assert.equal(await text(page, 'request-error'), '');
}

const SEND = '#request-form button[type="submit"]';

/** Focuses the form's Send button and presses Enter, then waits for the answer to show. */
const sendWithKeyboard = (page: Page): Promise<void> => pressAndWaitForAnswer(page, SEND);

/** Presses Enter on Send when the form is wrong: returns the error shown under the form. */
async function sendExpectingFormError(page: Page): Promise<string> {
  await page.evaluate(`void (document.getElementById('request-error').textContent = '')`);
  await page.evaluate(`document.querySelector(${js(SEND)}).focus()`);
  await page.press('Enter');
  await page.waitFor(`document.getElementById('request-error').textContent !== ''`);
  return text(page, 'request-error');
}

/** Focuses the follow-up button whose label is `label` and presses Enter; waits for the answer, which takes the focus. */
async function followWithKeyboard(page: Page, label: string): Promise<void> {
  assert.ok((await followButtons(page)).includes(label), `a "${label}" button is offered`);
  const shown = await answers(page);
  await page.evaluate(
    `[...document.querySelectorAll('#follow button')].find((button) => button.textContent === ${js(label)}).focus()`,
  );
  await page.press('Enter');
  await page.waitFor(`window.answersShown > ${shown} || document.getElementById('request-error').textContent !== ''`);
  assert.equal(await text(page, 'request-error'), '');
  assert.equal(await focused(page), 'status-line', 'the focus moves to the new answer');
}

/** Presses Enter on the reference's "Try it" button for this operation. */
async function tryIt(page: Page, method: string, path: string): Promise<void> {
  const selector = `button[data-method="${method}"][data-path="${path}"]`;
  await page.evaluate(`document.querySelector(${js(selector)}).focus()`);
  assert.equal(
    await page.evaluate(`document.activeElement === document.querySelector(${js(selector)})`),
    true,
    `Try it for ${method} ${path} takes the focus`,
  );
  await page.press('Enter');
}

/**
 * Reaches the email field (by Tab from the top of a page just opened, else by focusing it),
 * types the credentials with a Tab between them, and presses Enter; waits for the answer.
 */
async function logInWithKeyboard(page: Page, { email, password }: Credentials): Promise<void> {
  if ((await answers(page)) === 0) {
    let steps = 0;
    while ((await focused(page)) !== 'login-email') {
      assert.ok(++steps < 30, 'Tab never reached the email field');
      await page.press('Tab');
    }
  } else {
    await page.evaluate(`document.getElementById('login-email').focus()`);
    assert.equal(await focused(page), 'login-email');
  }
  await page.evaluate(`void (document.getElementById('login-email').value = '')`);
  await page.type(email);
  await page.press('Tab');
  assert.equal(await focused(page), 'login-password');
  await page.type(password);
  const shown = await answers(page);
  await page.press('Enter');
  await page.waitFor(`window.answersShown > ${shown}`);
}

/** Logs in and checks it worked. */
async function logIn(page: Page, credentials: Credentials): Promise<void> {
  await logInWithKeyboard(page, credentials);
  assert.match(await text(page, 'login-state'), /^Logged in as user \d+ /);
  assert.equal(await focused(page), 'login-state');
}

/** The live changes panel's items, newest first, as text. */
const liveItems = (page: Page): Promise<string[]> =>
  page.evaluate<string[]>(`[...document.querySelectorAll('#live-events li')].map((item) => item.textContent)`);

/** Presses Enter on the panel's start/stop button, then waits until its state line satisfies `until` (a JavaScript expression on `state`). */
async function toggleLive(page: Page, until: string): Promise<string> {
  await page.evaluate(`document.getElementById('live-toggle').focus()`);
  await page.press('Enter');
  await page.waitFor(`((state) => ${until})(document.getElementById('live-state').textContent)`);
  return text(page, 'live-state');
}

/** Waits until the panel lists `count` items; returns them, newest first. */
async function liveItemsWhen(page: Page, count: number): Promise<string[]> {
  await page.waitFor(`document.querySelectorAll('#live-events li').length === ${count}`);
  return liveItems(page);
}

async function saveScreenshot(page: Page, name: string): Promise<void> {
  await mkdir(ARTIFACTS, { recursive: true });
  const file = join(ARTIFACTS, name);
  await writeFile(file, await page.screenshot());
  console.log(`screenshot: ${file}`);
}

describe('home page in headless Chromium', { skip: SKIP }, () => {
  let api: TestServer;
  let browser: Browser;
  let current: Page | undefined;
  /**
   * Servers of a test's own, closed after the browser: a socket Chromium still holds open to
   * one would keep its close() draining for DRAIN_TIMEOUT_MS (10 s) before cutting it.
   */
  const ownServers: TestServer[] = [];

  before(async () => {
    api = await startTestServer({ seed: true });
    browser = await Browser.launch(chromium as string);
  });
  after(async () => {
    await browser?.close();
    await Promise.all([api?.close(), ...ownServers.map((server) => server.close())]);
  });
  afterEach(async () => {
    const page = current;
    current = undefined;
    if (page === undefined) return;
    await page.close();
    assert.deepEqual(page.problems, [], 'no CSP violation, console error or exception');
  });

  /** A new tab at 1280 × 900 on the home page (of `server`, else the example's), logged in through the form as `as` when given. */
  async function freshPage(as?: Credentials, server: TestServer = api): Promise<Page> {
    const page = await browser.newPage();
    current = page;
    await page.resize(1280, 900);
    await page.navigate(`${server.url}/`);
    // Counts the answers the status line shows, so a test can wait for the next one.
    await page.evaluate(`window.answersShown = 0;
      new MutationObserver(() => { window.answersShown += 1; }).observe(document.getElementById('status-line'), { childList: true })`);
    if (as !== undefined) await logIn(page, as);
    return page;
  }

  it('loads under its Content-Security-Policy, with a label on every control and nothing sent yet', async () => {
    const page = await freshPage();
    assert.equal(await page.evaluate('document.title'), 'plainrest: API explorer');
    const unlabelled = await page.evaluate<string[]>(
      `[...document.querySelectorAll('input, select, textarea, button')]
        .filter((control) => control.tagName === 'BUTTON'
          ? (control.getAttribute('aria-label') ?? control.textContent).trim() === ''
          : control.labels.length === 0 && !control.hasAttribute('aria-label'))
        .map((control) => control.outerHTML.slice(0, 80))`,
    );
    assert.deepEqual(unlabelled, []);
    assert.equal(await text(page, 'status-401'), '401 Unauthorized');
    assert.equal(await text(page, 'status-line'), NOTHING_SENT);
    assert.equal(await isHidden(page, 'exchange-parts'), true);
    assert.equal(await isHidden(page, 'logout'), true);
  });

  it('logs in with the keyboard alone, keeping the token in memory', async () => {
    const page = await freshPage();
    await logInWithKeyboard(page, ADMIN);
    assert.equal(
      await text(page, 'login-state'),
      'Logged in as user 3 (admin@example.com); the token is valid for 3600 s and is kept only in this page: every request you send carries it as Authorization: Bearer. The exchange is shown below.',
    );
    assert.equal(await focused(page), 'login-state');
    assert.equal(
      await meaning(page),
      '201 Created: you are logged in: the body holds your token (access_token) and how many seconds it lasts (expires_in).',
    );
    assert.match(await text(page, 'status-line'), / \(\d+ ms\)$/);
    const port = new URL(api.url).host;
    assert.equal(
      await text(page, 'request-text'),
      `POST /v1/tokens HTTP/1.1\nHost: ${port}\nContent-Type: application/json\nAccept: */* (added by the browser)\n\n{"email":"admin@example.com","password":"••••••••"}`,
    );
    assert.ok(!(await text(page, 'request-text')).includes(TEST_ADMIN_PASSWORD), 'the password is not shown');
    assert.equal(await value(page, 'login-password'), '');
    assert.equal(await isHidden(page, 'logout'), false);
    assert.deepEqual(await page.evaluate('[localStorage.length, sessionStorage.length, document.cookie]'), [0, 0, '']);

    // Requests now carry the token (shown cut short).
    await fillForm(page, { method: 'GET', path: '/v1/users/3' });
    await sendWithKeyboard(page);
    assert.equal(
      await meaning(page),
      '200 OK: it worked; the body is the record, the page of records or the document asked for.',
    );
    assert.match(await text(page, 'request-text'), /^Authorization: Bearer .{12}… \(your token, cut short here\)$/m);

    // Log out with the keyboard: the token is forgotten and the focus goes back to the email field.
    await page.evaluate(`document.getElementById('logout').focus()`);
    await page.press('Enter');
    await page.waitFor(`document.getElementById('login-state').textContent.startsWith('Logged out')`);
    assert.equal(
      await text(page, 'login-state'),
      'Logged out: the token is forgotten, and requests now go without Authorization.',
    );
    assert.equal(await focused(page), 'login-email');
    assert.equal(await isHidden(page, 'logout'), true);
    await sendWithKeyboard(page);
    assert.match(await meaning(page), /^401 Unauthorized: /);
    assert.ok(!(await text(page, 'request-text')).includes('Authorization'), 'no token is sent after logging out');
  });

  it('says so when the password is wrong, and sends no token afterwards', async () => {
    const page = await freshPage();
    const wrongPassword = 'not-the-password';
    const wrong =
      'Not logged in: 401 Unauthorized: the email or the password is wrong (the answer does not say which, so it cannot be used to find out who has an account).';
    await logInWithKeyboard(page, { email: ALICE.email, password: wrongPassword });
    assert.equal(await text(page, 'login-state'), wrong);
    assert.equal(await focused(page), 'login-state');
    assert.equal(await isHidden(page, 'logout'), true);
    assert.ok(!(await text(page, 'request-text')).includes(wrongPassword), 'the password is not shown');

    const unauthorized =
      '401 Unauthorized: no valid token came with the request: log in (POST /v1/tokens) and send Authorization: Bearer <token>.';
    await fillForm(page, { method: 'GET', path: '/v1/products' });
    await sendWithKeyboard(page);
    assert.equal(await meaning(page), unauthorized);
    assert.match(await text(page, 'request-text'), /^GET \/v1\/products HTTP\/1\.1\n/);
    assert.ok(!(await text(page, 'request-text')).includes('Authorization'), 'no Authorization line');

    // A wrong password after a good log-in forgets the token too.
    await logIn(page, ALICE);
    assert.equal(await isHidden(page, 'logout'), false);
    await logInWithKeyboard(page, { email: ALICE.email, password: wrongPassword });
    assert.equal(await text(page, 'login-state'), wrong);
    assert.equal(await isHidden(page, 'logout'), true);
    await fillForm(page, { method: 'GET', path: '/v1/products' });
    await sendWithKeyboard(page);
    assert.equal(await meaning(page), unauthorized);
    assert.ok(
      !(await text(page, 'request-text')).includes('Authorization'),
      'no Authorization line after a failed log-in',
    );
  });

  it('creates a product through the form, finds it in the list, and follows Link rel="next"', async () => {
    const page = await freshPage(ADMIN);
    const newest = (await api.get('/v1/products?sort=-id&limit=1')).body.data[0].id as number;
    const expectedId = newest + 1; // 13 with the example data

    await tryIt(page, 'POST', '/v1/products');
    assert.equal(await focused(page), 'request-method');
    assert.equal(await value(page, 'request-method'), 'POST');
    assert.equal(await value(page, 'request-path'), '/v1/products');
    assert.equal(await value(page, 'request-query'), '');
    assert.equal(await value(page, 'request-headers'), 'Content-Type: application/json');
    const example = JSON.parse(await value(page, 'request-body')) as Record<string, unknown>;
    // the form starts from the OpenAPI document's example of the request body
    assert.deepEqual(example, {
      name: 'Glass teapot 1 l',
      category: 'tea',
      price: 19.99,
      description: 'Borosilicate glass with a steel infuser.',
    });
    await setValue(page, 'request-body', JSON.stringify({ ...example, name: 'Kettle made in a browser' }, null, 2));
    await sendWithKeyboard(page);

    assert.equal(
      (await text(page, 'status-line')).replace(/ \(\d+ ms\)$/, ''),
      "201 Created: the record was created; the new record's address is in Location, and the body shows it.",
    );
    assert.equal(await page.evaluate(`document.getElementById('status-line').className`), 'status status-2');
    assert.match(await text(page, 'response-headers'), /^HTTP\/1\.1 201 Created\n/);
    assert.match(await text(page, 'response-headers'), new RegExp(`^location: /v1/products/${expectedId}$`, 'm'));
    assert.ok((await followButtons(page)).includes('GET the new record (Location)'));
    assert.equal(JSON.parse(await text(page, 'response-body')).id, expectedId);
    assert.equal(await isHidden(page, 'records'), true, 'no records table for a single record');
    const stored = await api.get(`/v1/products/${expectedId}`);
    assert.equal(stored.status, 200);
    assert.equal(stored.body.name, 'Kettle made in a browser');
    assert.equal(stored.body.price, 19.99);

    await fillForm(page, { method: 'GET', path: '/v1/products', query: 'sort=-id&limit=5' });
    await sendWithKeyboard(page);
    assert.match(await meaning(page), /^200 OK: /);
    assert.equal(await isHidden(page, 'records'), false);
    assert.equal(
      await page.evaluate(`document.querySelector('#records caption').textContent`),
      '5 records on this page',
    );
    const firstRow = await page.evaluate<Record<string, string>>(
      `(() => {
        const names = [...document.querySelectorAll('#records thead th')].map((th) => th.textContent);
        const cells = [...document.querySelectorAll('#records tbody tr:first-child td')].map((td) => td.textContent);
        return Object.fromEntries(names.map((name, index) => [name, cells[index]]));
      })()`,
    );
    assert.deepEqual(
      { id: firstRow['id'], name: firstRow['name'], category: firstRow['category'], price: firstRow['price'] },
      { id: String(expectedId), name: 'Kettle made in a browser', category: 'tea', price: '19.99' },
    );
    await saveScreenshot(page, 'home-page-desktop.png');
    // The same in dark mode: the page follows prefers-color-scheme.
    assert.equal(await page.evaluate('getComputedStyle(document.body).backgroundColor'), 'rgb(255, 255, 255)');
    await page.send('Emulation.setEmulatedMedia', { features: [{ name: 'prefers-color-scheme', value: 'dark' }] });
    assert.equal(await page.evaluate('getComputedStyle(document.body).backgroundColor'), 'rgb(13, 17, 23)');
    await saveScreenshot(page, 'home-page-desktop-dark.png');

    assert.deepEqual(await followButtons(page), [
      'GET self page (Link rel="self")',
      'GET first page (Link rel="first")',
      'GET next page (Link rel="next")',
      'GET last page (Link rel="last")',
    ]);
    await followWithKeyboard(page, 'GET next page (Link rel="next")');
    assert.match(await text(page, 'request-text'), /^GET \/v1\/products\?sort=-id&page=2&limit=5 HTTP\/1\.1\n/);
    assert.equal(await value(page, 'request-query'), 'sort=-id&page=2&limit=5');
    const ids = await page.evaluate<string[]>(
      `[...document.querySelectorAll('#records tbody tr td:first-child')].map((cell) => cell.textContent)`,
    );
    const secondPage = (await api.get('/v1/products?sort=-id&page=2&limit=5')).body.data as { id: number }[];
    assert.deepEqual(
      ids,
      secondPage.map((product) => String(product.id)),
    ); // 8, 7, 6, 5, 4 with the example data
    assert.equal(ids.length, 5);
    assert.ok(Number(ids[0]) < expectedId - 4);
    assert.equal(await focused(page), 'status-line');
  });

  it('edits a record with If-Match, and reads it again after a 412', async () => {
    const page = await freshPage(ADMIN);
    await fillForm(page, { method: 'GET', path: '/v1/products/1' });
    await sendWithKeyboard(page);
    assert.equal(
      await meaning(page),
      '200 OK: it worked; the body is the record, the page of records or the document asked for.',
    );
    const read = await api.get('/v1/products/1');
    const etag = read.headers.get('etag') as string;
    assert.match(etag, /^"[^"]+"$/);
    assert.match(
      await text(page, 'response-headers'),
      new RegExp(`^etag: ${etag.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`, 'm'),
    );
    const edit = `Edit it: PATCH with If-Match: ${etag}`;
    assert.deepEqual(await followButtons(page), [edit]);

    await page.evaluate(
      `[...document.querySelectorAll('#follow button')].find((button) => button.textContent === ${js(edit)}).focus()`,
    );
    await page.press('Enter');
    assert.equal(await focused(page), 'request-body');
    assert.equal(await value(page, 'request-method'), 'PATCH');
    assert.equal(await value(page, 'request-path'), '/v1/products/1');
    assert.equal(await value(page, 'request-query'), '');
    assert.equal(await value(page, 'request-headers'), `Content-Type: application/merge-patch+json\nIf-Match: ${etag}`);
    const { id: _id, created_at: _created, updated_at: _updated, ...editable } = read.body as Record<string, unknown>;
    const body = JSON.parse(await value(page, 'request-body')) as Record<string, unknown>;
    assert.deepEqual(body, editable);
    assert.ok(!('id' in body) && !('created_at' in body) && !('updated_at' in body));

    await setValue(page, 'request-body', JSON.stringify({ ...body, price: 12.5 }, null, 2));
    await sendWithKeyboard(page);
    assert.equal(
      await meaning(page),
      '200 OK: the record was changed; the body shows it as it is now, with its new ETag.',
    );
    const changed = await api.get('/v1/products/1');
    assert.equal(changed.body.price, 12.5);
    const newEtag = changed.headers.get('etag') as string;
    assert.notEqual(newEtag, etag);
    assert.deepEqual(await followButtons(page), [`Edit it: PATCH with If-Match: ${newEtag}`]);

    // The same form again: its If-Match is now stale.
    await sendWithKeyboard(page);
    assert.equal(
      await meaning(page),
      '412 Precondition Failed: If-Match named an ETag that is no longer current: someone changed the record since you read it; read it again.',
    );
    assert.equal(await page.evaluate(`document.getElementById('status-line').className`), 'status status-4');
    assert.equal((await api.get('/v1/products/1')).body.price, 12.5);
    assert.deepEqual(await followButtons(page), ['GET it again (its current ETag)']);
    await followWithKeyboard(page, 'GET it again (its current ETag)');
    assert.equal(
      await meaning(page),
      '200 OK: it worked; the body is the record, the page of records or the document asked for.',
    );
    assert.match(await text(page, 'request-text'), /^GET \/v1\/products\/1 HTTP\/1\.1\n/);
    assert.deepEqual(await followButtons(page), [`Edit it: PATCH with If-Match: ${newEtag}`]);
  });

  it('explains OPTIONS, HEAD, DELETE and a 304, which have no body', async () => {
    const page = await freshPage(ADMIN);
    await fillForm(page, { method: 'OPTIONS', path: '/v1/products' });
    await sendWithKeyboard(page);
    assert.equal(
      await meaning(page),
      '204 No Content: the Allow header lists the methods this path answers; no token is needed to ask.',
    );
    assert.match(await text(page, 'response-headers'), /^allow: GET, HEAD, POST, OPTIONS$/m);
    assert.equal(await text(page, 'response-body'), '(no body)');
    assert.equal(await isHidden(page, 'records'), true);

    await fillForm(page, { method: 'HEAD', path: '/v1/products/1' });
    await sendWithKeyboard(page);
    assert.equal(await meaning(page), '200 OK: it worked: these are the headers a GET would send, without the body.');
    assert.match(await text(page, 'response-headers'), /^etag: "[^"]+"$/m);
    assert.equal(await text(page, 'response-body'), '(no body)');

    assert.equal((await api.get('/v1/products/2')).status, 200);
    await fillForm(page, { method: 'DELETE', path: '/v1/products/2' });
    await sendWithKeyboard(page);
    assert.equal(
      await meaning(page),
      '204 No Content: the record is deleted; a second DELETE of the same address answers 404.',
    );
    assert.equal(await text(page, 'response-body'), '(no body)');
    assert.equal((await api.get('/v1/products/2')).status, 404);

    await fillForm(page, { method: 'GET', path: '/v1/products/1', headers: 'If-None-Match: *' });
    await sendWithKeyboard(page);
    assert.equal(
      await meaning(page),
      '304 Not Modified: your copy is still current (its ETag matches If-None-Match), so no body was sent.',
    );
    assert.match(await text(page, 'request-text'), /^If-None-Match: \*$/m);
    assert.equal(await text(page, 'response-body'), '(no body)');
  });

  it('tells an ordinary user why she may not create a product', async () => {
    const page = await freshPage(ALICE);
    assert.match(await text(page, 'login-state'), /^Logged in as user 1 \(alice@example\.com\); /);
    const newest = (await api.get('/v1/products?sort=-id&limit=1')).body.data[0].id as number;
    await tryIt(page, 'POST', '/v1/products');
    await sendWithKeyboard(page);
    assert.equal(
      await meaning(page),
      '403 Forbidden: you are logged in, but your role may not do this (only an administrator may, or the record is not yours).',
    );
    const problem = JSON.parse(await text(page, 'response-body')) as { status: number; detail: string };
    assert.equal(problem.status, 403);
    assert.equal(typeof problem.detail, 'string');
    assert.equal(
      await page.evaluate(`document.querySelector('#status-line strong + span').textContent`),
      ` The server says: ${problem.detail}`,
    );
    assert.equal((await api.get('/v1/products?sort=-id&limit=1')).body.data[0].id, newest, 'no product was created');
  });

  it('sends one request at a time, and says so when asked for a second', async () => {
    const page = await freshPage();
    await fillForm(page, { method: 'GET', path: '/v1/products' });
    // The log-in (a password hash on the server) is still in flight when Send is pressed in the same turn.
    await page.evaluate(`document.getElementById('login-email').value = ${js(ADMIN.email)};
      document.getElementById('login-password').value = ${js(ADMIN.password)};
      document.querySelector('#login-form button[type="submit"]').click();
      document.querySelector(${js(SEND)}).click();`);
    assert.equal(
      await text(page, 'request-error'),
      'the last request has not been answered yet: send again once its answer shows',
    );
    await page.waitFor(`document.getElementById('login-state').textContent.startsWith('Logged in')`);
    assert.equal(await answers(page), 1, 'only the log-in was sent');
    await sendWithKeyboard(page);
    assert.match(await meaning(page), /^200 OK: /);
  });

  it('refuses a malformed form without sending it', async () => {
    const page = await freshPage();
    const cases: { form: Parameters<typeof fillForm>[1]; error: string }[] = [
      {
        form: { method: 'GET', path: '/v1/products', headers: 'X-Thing' },
        error: 'each header line reads "Name: value", not: X-Thing',
      },
      {
        form: { method: 'GET', path: '/v1/products', headers: 'Host: x' },
        error: 'a browser does not let a page set Host: remove that line',
      },
      {
        form: { method: 'GET', path: '//example.com/x' },
        error: 'the path starts with one "/", as in /v1/products: requests go to this server only',
      },
      {
        form: { method: 'GET', path: '/v1/products', body: '{"name": "x"}' },
        error: 'GET requests have no body: empty the body field',
      },
    ];
    for (const { form, error } of cases) {
      await fillForm(page, form);
      assert.equal(await sendExpectingFormError(page), error);
      assert.equal(await page.evaluate(`document.getElementById('request-error').getAttribute('role')`), 'alert');
      assert.equal(await text(page, 'status-line'), NOTHING_SENT, `nothing was sent for ${JSON.stringify(form)}`);
      assert.equal(await isHidden(page, 'exchange-parts'), true);
      assert.equal(await answers(page), 0);
    }
    // Once the form is right, it is sent and the error goes away.
    await fillForm(page, { method: 'GET', path: '/v1/products' });
    await sendWithKeyboard(page);
    assert.match(await meaning(page), /^401 Unauthorized: /);
    assert.equal(await isHidden(page, 'exchange-parts'), false);
  });

  it('shows the Content-Type the browser adds to a body sent without one, and the 415', async () => {
    const page = await freshPage(ADMIN);
    await fillForm(page, {
      method: 'POST',
      path: '/v1/products',
      body: '{"name": "Unlabelled", "category": "tea", "price": 1}',
    });
    await sendWithKeyboard(page);
    assert.equal(
      await meaning(page),
      '415 Unsupported Media Type: the body was not labelled as JSON: send Content-Type: application/json (or application/merge-patch+json for PATCH).',
    );
    assert.match(await text(page, 'response-headers'), /^HTTP\/1\.1 415 Unsupported Media Type\n/);
    assert.match(
      await text(page, 'request-text'),
      /^Content-Type: text\/plain;charset=UTF-8 \(added by the browser, as no Content-Type was given\)$/m,
    );
    assert.match(await text(page, 'request-text'), /\n\n\{"name": "Unlabelled", "category": "tea", "price": 1\}$/);
  });

  it('shows HTML in the data as text', async () => {
    const name = '<img src=x onerror=alert(1)>';
    const created = await api.post('/v1/products', { name, category: 'xss', price: 1 });
    assert.equal(created.status, 201);
    const page = await freshPage(ADMIN);
    await fillForm(page, { method: 'GET', path: '/v1/products', query: 'category=xss' });
    await sendWithKeyboard(page);
    assert.match(await meaning(page), /^200 OK: /);
    const cells = await page.evaluate<string[]>(
      `(() => {
        const column = [...document.querySelectorAll('#records thead th')].findIndex((th) => th.textContent === 'name');
        return [...document.querySelectorAll('#records tbody tr')].map((row) => row.cells[column].textContent);
      })()`,
    );
    assert.deepEqual(cells, [name]);
    assert.equal(await page.evaluate(`document.querySelectorAll('#records img').length`), 0);
    assert.equal(await page.evaluate(`document.querySelectorAll('img').length`), 0);
    assert.ok((await text(page, 'response-body')).includes(JSON.stringify(name)));
    assert.deepEqual(page.problems, []);
  });

  it('switches the reference to the Portuguese paths with the keyboard', async () => {
    const page = await freshPage();
    const shown = (): Promise<[string, boolean][]> =>
      page.evaluate(
        `[...document.querySelectorAll('[data-vocabulary]')].map((part) => [part.dataset.vocabulary, part.hidden])`,
      );
    assert.deepEqual(await shown(), [
      ['en', false],
      ['pt', true],
    ]);
    await page.evaluate(`document.querySelector('input[name="vocabulary"][value="pt"]').focus()`);
    await page.press('Space');
    assert.equal(await page.evaluate(`document.querySelector('input[name="vocabulary"]:checked').value`), 'pt');
    assert.deepEqual(await shown(), [
      ['en', true],
      ['pt', false],
    ]);
    await tryIt(page, 'POST', '/v1/produtos');
    assert.equal(await focused(page), 'request-method');
    assert.equal(await value(page, 'request-method'), 'POST');
    assert.equal(await value(page, 'request-path'), '/v1/produtos');
    assert.equal(await value(page, 'request-headers'), 'Content-Type: application/json');
    assert.deepEqual(JSON.parse(await value(page, 'request-body')), {
      nome: 'Bule de vidro 1 l',
      categoria: 'chá',
      preco: 19.99,
      descricao: 'Vidro borossilicato com infusor de aço.',
    });

    await page.evaluate(`document.querySelector('input[name="vocabulary"][value="en"]').focus()`);
    await page.press('Space');
    assert.deepEqual(await shown(), [
      ['en', false],
      ['pt', true],
    ]);
  });

  it('fits a 320 px wide screen, without breaking field names', async () => {
    const page = await freshPage();
    await page.resize(320, 640, true);
    await logIn(page, ADMIN);
    await fillForm(page, { method: 'GET', path: '/v1/products', query: 'limit=5' });
    await sendWithKeyboard(page);
    assert.match(await meaning(page), /^200 OK: /);
    assert.equal(await page.evaluate('window.innerWidth'), 320);

    const brokenFieldNames = (): Promise<{ checked: number; broken: string[] }> =>
      page.evaluate(`(() => {
        const shown = [...document.querySelectorAll('th code')].filter((code) => code.closest('[hidden]') === null);
        return { checked: shown.length, broken: shown.filter((code) => code.getClientRects().length !== 1).map((code) => code.textContent) };
      })()`);
    for (const language of ['en', 'pt']) {
      await page.evaluate(`document.querySelector('input[name="vocabulary"][value="${language}"]').click()`);
      assert.ok(
        (await page.evaluate<number>('document.documentElement.scrollWidth')) <= 320,
        `nothing scrolls sideways at 320 px (${language})`,
      );
      const { checked, broken } = await brokenFieldNames();
      assert.ok(checked > 0, `field names are shown (${language})`);
      assert.deepEqual(broken, [], `field names on one line (${language})`);
    }
    await page.evaluate(`document.querySelector('input[name="vocabulary"][value="en"]').click()`);

    await page.evaluate('window.scrollTo(0, 0)');
    await saveScreenshot(page, 'home-page-phone.png');
    await page.evaluate(`document.getElementById('exchange').scrollIntoView()`);
    await saveScreenshot(page, 'home-page-phone-exchange.png');
  });

  it('follows the change feed live: each change on top as it is stored, only what she may read, and a restart resumes after the last one (Last-Event-ID)', async () => {
    const page = await freshPage();
    const pressed = (): Promise<string | null> =>
      page.evaluate(`document.getElementById('live-toggle').getAttribute('aria-pressed')`);
    assert.equal(await text(page, 'live-state'), 'Stopped.');
    assert.equal(
      await toggleLive(page, `state.startsWith('Log in first')`),
      'Log in first: the change feed answers only requests with a token.',
    );
    assert.equal(await pressed(), 'false');

    await page.evaluate(`document.getElementById('login-email').focus()`);
    await logIn(page, ALICE);
    const following = 'Following /v1/events: each change to a record you may read appears at the top as it is stored.';
    assert.equal(await toggleLive(page, `state.startsWith('Following')`), following);
    assert.equal(await pressed(), 'true');
    assert.equal(await text(page, 'live-toggle'), 'Stop following changes');

    // Changes made through the API (the administrator's token) appear as they are stored; Bob's order is not Alice's to see.
    const teapot = (await api.post('/v1/products', { name: 'Live teapot', category: 'tea', price: 30 })).body
      .id as number;
    const [created] = await liveItemsWhen(page, 1);
    assert.match(
      created ?? '',
      new RegExp(`^created products #${teapot} /v1/products/${teapot} \\d{1,2}:\\d{2}:\\d{2}.* event \\d+$`),
    );
    await api.patch(`/v1/products/${teapot}`, { price: 31 });
    assert.equal((await api.post('/v1/users/2/orders', { items: [{ product_id: 1, quantity: 1 }] })).status, 201);
    const kettle = (await api.post('/v1/products', { name: 'Live kettle', category: 'tea', price: 40 })).body
      .id as number;
    await api.delete(`/v1/products/${teapot}`);
    const four = await liveItemsWhen(page, 4);
    assert.deepEqual(
      four.map((item) => item.split(' ').slice(0, 3).join(' ')),
      [
        `deleted products #${teapot}`,
        `created products #${kettle}`,
        `updated products #${teapot}`,
        `created products #${teapot}`,
      ],
    );
    assert.equal(
      await page.evaluate(`document.querySelectorAll('#live-events li.live-deleted button').length`),
      0,
      'a deleted record has no address to GET',
    );

    // A change's path is a button that reads the record.
    await pressAndWaitForAnswer(page, '#live-events li.live-created button');
    assert.match(await meaning(page), /^200 OK: /);
    assert.equal(JSON.parse(await text(page, 'response-body')).name, 'Live kettle');

    // Stopped, it resumes after the last event it received: what changed meanwhile comes first, nothing twice.
    const stopped = await toggleLive(page, `state.startsWith('Stopped')`);
    const last = Number(
      /^Stopped\. Start again to resume after event (\d+): the changes made meanwhile come first\.$/.exec(stopped)?.[1],
    );
    assert.ok(last >= Number(/event (\d+)$/.exec(four[0] ?? '')?.[1]), stopped);
    assert.equal(await pressed(), 'false');
    const mug = (await api.post('/v1/products', { name: 'Live mug', category: 'tea', price: 9 })).body.id as number;
    assert.equal(
      await toggleLive(page, `state.startsWith('Following')`),
      `Following /v1/events, after event ${last} (Last-Event-ID): each change to a record you may read appears at the top as it is stored.`,
    );
    const five = await liveItemsWhen(page, 5);
    assert.match(five[0] ?? '', new RegExp(`^created products #${mug} `));
    const ids = await page.evaluate<string[]>(
      `[...document.querySelectorAll('#live-events li')].map((item) => item.dataset.eventId)`,
    );
    assert.equal(new Set(ids).size, 5, 'no event twice');
    await toggleLive(page, `state.startsWith('Stopped')`);
    await page.evaluate(`document.getElementById('live').scrollIntoView()`);
    await saveScreenshot(page, 'home-page-live-changes.png');
  });

  it('says so when the feed no longer holds the events after the last one shown (event: reset), and when the server ends the stream (event: closed)', async () => {
    // A feed that keeps only its newest event.
    const short = await startTestServer({ events: { kept: 1, keptForMs: 0 } });
    try {
      const page = await freshPage(ADMIN, short);
      await toggleLive(page, `state.startsWith('Following')`);
      await short.post('/v1/products', { name: 'Kept a moment', category: 'tea', price: 1 });
      await liveItemsWhen(page, 1);
      await toggleLive(page, `state.startsWith('Stopped')`);
      for (const name of ['Gone 1', 'Gone 2', 'Gone 3'])
        await short.post('/v1/products', { name, category: 'tea', price: 1 });
      await toggleLive(page, `state.startsWith('Following')`);
      const [reset] = await liveItemsWhen(page, 2);
      assert.match(
        reset ?? '',
        /^reset the feed no longer holds the events after the last one shown, so changes may be missing here: read the records again\. the events after \d+ are no longer kept/,
      );
      assert.equal(await page.evaluate(`document.querySelector('#live-events li').className`), 'live-notice');
      // The stream goes on from the newest event.
      const next = (await short.post('/v1/products', { name: 'After the reset', category: 'tea', price: 1 })).body
        .id as number;
      assert.match((await liveItemsWhen(page, 3))[0] ?? '', new RegExp(`^created products #${next} `));

      short.server.app.beginShutdown();
      const [closed] = await liveItemsWhen(page, 4);
      assert.match(closed ?? '', /^closed the server ended the stream \(shutting_down\): the server is shutting down/);
      // It tries again (another process may answer); this one refuses while it shuts down.
      await page.waitFor(
        `/^(503 Service Unavailable|The stream ended|The connection was lost)/.test(document.getElementById('live-state').textContent)`,
      );
      await toggleLive(page, `state.startsWith('Stopped')`);
    } finally {
      await short.close();
    }
  });

  it('explores a declared domain as well: its collections in the reference, Try it with the example the document built, a 201', async () => {
    const library = await startTestServer({ resources: LIBRARY });
    ownServers.push(library);
    const page = await freshPage(ADMIN, library);
    const paths = await page.evaluate<string[]>(
      `[...new Set([...document.querySelectorAll('button[data-path]')].map((button) => button.dataset.path))]`,
    );
    assert.ok(
      paths.includes('/v1/authors') && paths.includes('/v1/autores') && paths.includes('/v1/loans'),
      paths.join(' '),
    );
    assert.equal(
      paths.some((path) => path.includes('products')),
      false,
      'nothing of the example domain',
    );
    await tryIt(page, 'POST', '/v1/authors');
    assert.equal(await value(page, 'request-path'), '/v1/authors');
    const example = JSON.parse(await value(page, 'request-body')) as Record<string, unknown>;
    // the example fits the declared pattern ^[A-Z]{2}$, so sending it as it is succeeds
    assert.deepEqual(example, { name: 'example name', country: 'AA' });
    await sendWithKeyboard(page);
    assert.equal(
      await meaning(page),
      "201 Created: the record was created; the new record's address is in Location, and the body shows it.",
    );
    const created = JSON.parse(await text(page, 'response-body')) as { id: number };
    const stored = await library.get(`/v1/authors/${created.id}`);
    assert.equal(stored.status, 200);
    assert.equal(stored.body.country, 'AA');
  });

  it('under a base path (/api): logs in, sends, follows Location and Link, edits, follows the feed', async () => {
    const served = await startTestServer({ seed: true, basePath: '/api' });
    ownServers.push(served);
    // The page at /api/, and this test's own requests under /api too.
    const underApi = wrap({ ...served.server, url: `${served.url}/api` }, served.token);
    const page = await freshPage(ADMIN, underApi);
    assert.match(await text(page, 'request-text'), /^POST \/api\/v1\/tokens HTTP\/1\.1\n/);
    assert.equal(
      await meaning(page),
      '201 Created: you are logged in: the body holds your token (access_token) and how many seconds it lasts (expires_in).',
    );
    assert.equal(await value(page, 'request-path'), '/api/v1/products');

    await tryIt(page, 'POST', '/api/v1/products');
    await sendWithKeyboard(page);
    assert.match(await meaning(page), /^201 Created: /);
    assert.match(await text(page, 'response-headers'), /^location: \/api\/v1\/products\/13$/m);
    await followWithKeyboard(page, 'GET the new record (Location)');
    assert.match(await text(page, 'request-text'), /^GET \/api\/v1\/products\/13 HTTP\/1\.1\n/);
    assert.match(await meaning(page), /^200 OK: /);
    assert.ok(
      (await followButtons(page)).some((label) => label.startsWith('Edit it: PATCH with If-Match: ')),
      'a record under /api may be edited',
    );

    await fillForm(page, { method: 'GET', path: '/api/v1/products', query: 'limit=5' });
    await sendWithKeyboard(page);
    await followWithKeyboard(page, 'GET next page (Link rel="next")');
    assert.match(await text(page, 'request-text'), /^GET \/api\/v1\/products\?page=2&limit=5 HTTP\/1\.1\n/);
    assert.match(await meaning(page), /^200 OK: /);

    await fillForm(page, { method: 'GET', path: 'v1/products' });
    assert.equal(
      await sendExpectingFormError(page),
      'the path starts with one "/", as in /api/v1/products: requests go to this server only',
    );

    assert.equal(
      await toggleLive(page, `state.startsWith('Following')`),
      'Following /api/v1/events: each change to a record you may read appears at the top as it is stored.',
    );
    const teapot = (await underApi.post('/v1/products', { name: 'Teapot under /api', category: 'tea', price: 30 })).body
      .id as number;
    const [created] = await liveItemsWhen(page, 1);
    assert.match(created ?? '', new RegExp(`^created products #${teapot} /api/v1/products/${teapot} `));
    await toggleLive(page, `state.startsWith('Stopped')`);
  });
});
