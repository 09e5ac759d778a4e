// The home page in a real browser: headless Chromium, driven over the DevTools protocol
// (test/chromium.ts), against a server on port 0 with the example data. A visitor logs
// in with the keyboard alone, creates a product through the form, finds it in the list,
// follows a Link rel, reads what error statuses mean, switches to the Portuguese paths,
// and the page fits 320 px. No step may trip the Content-Security-Policy or throw.
// Screenshots at desktop and phone widths go to test/artifacts/ (ARTIFACTS_DIR).
// Without Chromium (`.ci/run` installs Debian's package) the suite is skipped, and says so.

import assert from 'node:assert/strict';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import type { Page } from './chromium.js';
import { Browser, findChromium } from './chromium.js';
import type { TestServer } from './helpers.js';
import { startTestServer, TEST_ADMIN_EMAIL, TEST_ADMIN_PASSWORD } from './helpers.js';

const chromium = findChromium();
const ARTIFACTS = process.env['ARTIFACTS_DIR'] ?? fileURLToPath(new URL('./artifacts/', import.meta.url));
const SKIP = chromium === undefined ? 'Chromium is not installed (looked for CHROMIUM_PATH, chromium, google-chrome); `.ci/run` installs it with apt-get' : false;

const text = (page: Page, id: string): Promise<string> => page.evaluate<string>(`document.getElementById(${JSON.stringify(id)}).textContent`);

/** Sets a form control's value as a script would after the user edited it (the typing itself is tested on the login form). */
function setValue(page: Page, id: string, value: string): Promise<void> {
  return page.evaluate(`void (document.getElementById(${JSON.stringify(id)}).value = ${JSON.stringify(value)})`);
}

/** Focuses the form's Send button and presses Enter, then waits for the answer of the request to show. */
async function sendWithKeyboard(page: Page): Promise<void> {
  const before = await text(page, 'response-headers');
  await page.evaluate(`document.querySelector('#request-form button[type="submit"]').focus()`);
  await page.press('Enter');
  await page.waitFor(`document.getElementById('response-headers').textContent !== ${JSON.stringify(before)} || document.getElementById('request-error').textContent !== ''`);
  assert.equal(await text(page, 'request-error'), '');
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
  let page: Page;

  before(async () => {
    api = await startTestServer({ seed: true });
    browser = await Browser.launch(chromium as string);
    page = await browser.newPage();
    await page.resize(1280, 900);
    await page.navigate(`${api.url}/`);
  });
  after(async () => {
    await browser?.close();
    await api?.close();
  });

  it('loads under its Content-Security-Policy, with a label on every control', async () => {
    assert.equal(await page.evaluate('document.title'), 'plainrest: API explorer');
    const unlabelled = await page.evaluate<string[]>(
      `[...document.querySelectorAll('input, select, textarea, button')]
        .filter((control) => control.tagName === 'BUTTON'
          ? (control.getAttribute('aria-label') ?? control.textContent).trim() === ''
          : control.labels.length === 0 && !control.hasAttribute('aria-label'))
        .map((control) => control.outerHTML.slice(0, 80))`,
    );
    assert.deepEqual(unlabelled, []);
    // The reference lists every operation of the OpenAPI document (both vocabularies).
    const operations = await page.evaluate<number>(`document.querySelectorAll('article.operation').length`);
    const document = (await api.get('/v1/openapi.json')).body as { paths: Record<string, Record<string, unknown>> };
    const expected = Object.values(document.paths).flatMap((item) => Object.keys(item).filter((key) => key !== 'parameters')).length;
    assert.equal(operations, expected);
    assert.deepEqual(page.problems, []);
  });

  it('logs in with the keyboard alone, keeping the token in memory', async () => {
    let steps = 0;
    while ((await page.evaluate<string>('document.activeElement?.id ?? ""')) !== 'login-email') {
      assert.ok(++steps < 30, 'Tab never reached the email field');
      await page.press('Tab');
    }
    await page.type(TEST_ADMIN_EMAIL);
    await page.press('Tab');
    assert.equal(await page.evaluate('document.activeElement.id'), 'login-password');
    await page.type(TEST_ADMIN_PASSWORD);
    await page.press('Enter');
    await page.waitFor(`document.getElementById('login-state').textContent.startsWith('Logged in')`);
    assert.match(await text(page, 'login-state'), /^Logged in as user 3 \(admin@example\.com\); the token is valid for 3600 s/);
    assert.match(await text(page, 'status-line'), /^201 Created: /);
    const requestText = await text(page, 'request-text');
    assert.match(requestText, /^POST \/v1\/tokens HTTP\/1\.1\n/);
    assert.ok(!requestText.includes(TEST_ADMIN_PASSWORD), 'the password is not shown');
    assert.equal(await page.evaluate(`document.getElementById('login-password').value`), '');
    assert.deepEqual(await page.evaluate('[localStorage.length, sessionStorage.length, document.cookie]'), [0, 0, '']);
  });

  it('creates a product through the form, then finds it in the list', async () => {
    await page.evaluate(`document.querySelector('button[data-method="POST"][data-path="/v1/products"]').click()`);
    assert.equal(await page.evaluate(`document.getElementById('request-method').value`), 'POST');
    assert.equal(await page.evaluate(`document.getElementById('request-headers').value`), 'Content-Type: application/json');
    const example = JSON.parse(await page.evaluate<string>(`document.getElementById('request-body').value`)) as Record<string, unknown>;
    assert.deepEqual(example, { name: 'Example', category: 'tea', price: 9.99 });
    await setValue(page, 'request-body', JSON.stringify({ ...example, name: 'Kettle made in a browser' }, null, 2));
    await sendWithKeyboard(page);

    assert.equal(await text(page, 'status-line').then((line) => line.replace(/ \(\d+ ms\)$/, '')),
      "201 Created: the record was created; the new record's address is in Location, and the body shows it.");
    assert.match(await text(page, 'response-headers'), /^location: \/v1\/products\/13$/m);
    const stored = await api.get('/v1/products/13');
    assert.equal(stored.status, 200);
    assert.equal(stored.body.name, 'Kettle made in a browser');

    await setValue(page, 'request-method', 'GET');
    await setValue(page, 'request-path', '/v1/products');
    await setValue(page, 'request-query', 'sort=-id&limit=5');
    await setValue(page, 'request-headers', '');
    await setValue(page, 'request-body', '');
    await sendWithKeyboard(page);
    assert.match(await text(page, 'status-line'), /^200 OK: /);
    const firstRow = await page.evaluate<string[]>(`[...document.querySelectorAll('#records tbody tr:first-child td')].map((cell) => cell.textContent)`);
    assert.deepEqual(firstRow.slice(0, 4), ['13', 'Kettle made in a browser', 'tea', '9.99']);
    await saveScreenshot(page, 'home-page-desktop.png');
  });

  it('follows the Link rels of a list page', async () => {
    const buttons = await page.evaluate<string[]>(`[...document.querySelectorAll('#follow button')].map((button) => button.textContent)`);
    assert.deepEqual(buttons, ['GET self page (Link rel="self")', 'GET first page (Link rel="first")', 'GET next page (Link rel="next")', 'GET last page (Link rel="last")']);
    const before = await text(page, 'response-headers');
    await page.evaluate(`[...document.querySelectorAll('#follow button')].find((button) => button.textContent.includes('"next"')).click()`);
    await page.waitFor(`document.getElementById('response-headers').textContent !== ${JSON.stringify(before)}`);
    assert.match(await text(page, 'request-text'), /^GET \/v1\/products\?sort=-id&page=2&limit=5 HTTP\/1\.1\n/);
    const ids = await page.evaluate<string[]>(`[...document.querySelectorAll('#records tbody tr td:first-child')].map((cell) => cell.textContent)`);
    assert.deepEqual(ids, ['8', '7', '6', '5', '4']);
  });

  it('explains the error statuses a visitor runs into', async () => {
    await setValue(page, 'request-method', 'POST');
    await setValue(page, 'request-query', '');
    await setValue(page, 'request-headers', 'Content-Type: application/json');
    await setValue(page, 'request-body', '{"name": "Free kettle", "category": "tea", "price": -1}');
    await sendWithKeyboard(page);
    assert.match(await text(page, 'status-line'), /^422 Unprocessable Content: the JSON is well-formed but breaks the rules/);
    assert.match(await text(page, 'response-body'), /"field": "price"/);

    await page.evaluate(`document.getElementById('logout').click()`);
    await setValue(page, 'request-method', 'GET');
    await setValue(page, 'request-headers', '');
    await setValue(page, 'request-body', '');
    await sendWithKeyboard(page);
    assert.match(await text(page, 'status-line'), /^401 Unauthorized: no valid token came with the request: log in/);
    assert.ok(!(await text(page, 'request-text')).includes('Authorization'), 'no token is sent after logging out');
  });

  it('switches the reference to the Portuguese paths', async () => {
    await page.evaluate(`document.querySelector('input[name="vocabulary"][value="pt"]').click()`);
    assert.deepEqual(await page.evaluate(`[...document.querySelectorAll('[data-vocabulary]')].map((part) => [part.dataset.vocabulary, part.hidden])`), [
      ['en', true],
      ['pt', false],
    ]);
    await page.evaluate(`document.querySelector('button[data-method="POST"][data-path="/v1/produtos"]').click()`);
    assert.deepEqual(JSON.parse(await page.evaluate<string>(`document.getElementById('request-body').value`)), { nome: 'Example', categoria: 'tea', preco: 9.99 });
    assert.equal(await page.evaluate(`document.getElementById('request-path').value`), '/v1/produtos');
  });

  it('fits a 320 px wide screen', async () => {
    await page.resize(320, 640, true);
    await page.evaluate('window.scrollTo(0, 0)');
    assert.ok((await page.evaluate<number>('document.documentElement.scrollWidth')) <= 320, 'nothing scrolls sideways at 320 px');
    await saveScreenshot(page, 'home-page-phone.png');
    await page.evaluate(`document.getElementById('exchange').scrollIntoView()`);
    await saveScreenshot(page, 'home-page-phone-exchange.png');
    assert.deepEqual(page.problems, [], 'no CSP violation, console error or exception');
  });
});
