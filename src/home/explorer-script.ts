// The home page's script: log in, send any request, show the whole exchange. It is
// plain browser JavaScript kept as text, inlined in a <script> element whose hash the
// Content-Security-Policy lists, so the page needs no build step and no other file.
// It writes the page only through textContent and createElement (never HTML from a
// string), which is what lets the policy also require Trusted Types.
// The token lives in a variable of this closure: never in storage, gone on reload.

export const EXPLORER_SCRIPT = `
'use strict';
(() => {
  const byId = (id) => document.getElementById(id);
  const { meanings, tokensPath } = JSON.parse(byId('explorer-data').textContent);
  let token;

  // --- The vocabulary switch: show the reference in English or Portuguese paths.
  const showVocabulary = (language) => {
    for (const part of document.querySelectorAll('[data-vocabulary]')) part.hidden = part.dataset.vocabulary !== language;
  };
  for (const radio of document.querySelectorAll('input[name="vocabulary"]')) {
    radio.addEventListener('change', () => showVocabulary(radio.value));
    if (radio.checked) showVocabulary(radio.value);
  }

  // --- Sending a request and showing the exchange.
  const form = byId('request-form');
  const fields = { method: byId('request-method'), path: byId('request-path'), query: byId('request-query'), headers: byId('request-headers'), body: byId('request-body') };
  const formError = byId('request-error');

  /** "Name: value" lines → pairs; throws on a line without a colon. */
  const parseHeaderLines = (text) => text.split('\\n').map((line) => line.trim()).filter((line) => line !== '').map((line) => {
    const colon = line.indexOf(':');
    if (colon < 1) throw new Error('each header line reads "Name: value": ' + line);
    return [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
  });

  const element = (name, text, className) => {
    const node = document.createElement(name);
    if (text !== undefined) node.textContent = text;
    if (className !== undefined) node.className = className;
    return node;
  };

  const statusText = (status) => {
    const known = meanings[status];
    return known === undefined ? String(status) : status + ' ' + known.title + ': ' + known.meaning;
  };

  /** A table of records (a list's data), columns in the order the first record gives. */
  const recordsTable = (records) => {
    const columns = [];
    for (const record of records) for (const key of Object.keys(record)) if (!columns.includes(key)) columns.push(key);
    const table = element('table');
    table.append(element('caption', records.length + (records.length === 1 ? ' record' : ' records') + ' on this page'));
    const head = table.createTHead().insertRow();
    for (const column of columns) head.append(Object.assign(element('th', column), { scope: 'col' }));
    const body = table.createTBody();
    for (const record of records) {
      const row = body.insertRow();
      for (const column of columns) {
        const value = record[column];
        row.insertCell().textContent = value === undefined ? '' : typeof value === 'object' && value !== null ? JSON.stringify(value) : String(value);
      }
    }
    return table;
  };

  /** Link: <url>; rel="next", … (RFC 8288 §3) → [{ url, rel }]. */
  const parseLinks = (header) => {
    const links = [];
    for (const match of (header ?? '').matchAll(/<([^>]*)>\\s*;\\s*rel="?([^";,]+)"?/g)) links.push({ url: match[1], rel: match[2] });
    return links;
  };

  const followButton = (label, url) => Object.assign(element('button', label, 'secondary'), { type: 'button', onclick: () => follow(url) });

  const showExchange = (request, response, text, milliseconds) => {
    byId('exchange-empty').hidden = true;
    byId('exchange-parts').hidden = false;
    const shownHeaders = request.headers.map(([name, value]) =>
      name.toLowerCase() === 'authorization' ? name + ': ' + value.slice(0, 19) + '… (your token)' : name + ': ' + value);
    byId('request-text').textContent = [request.method + ' ' + request.target + ' HTTP/1.1', 'Host: ' + location.host, ...shownHeaders]
      .join('\\n') + (request.shownBody ? '\\n\\n' + request.shownBody : '');
    const statusLine = byId('status-line');
    statusLine.replaceChildren(element('strong', statusText(response.status)), element('span', ' (' + Math.round(milliseconds) + ' ms)', 'hint'));
    statusLine.className = 'status status-' + String(response.status)[0];
    const headerLines = ['HTTP/1.1 ' + response.status + ' ' + (meanings[response.status]?.title ?? '')];
    for (const [name, value] of response.headers) headerLines.push(name + ': ' + value);
    byId('response-headers').textContent = headerLines.join('\\n');

    let json;
    try { json = text === '' ? undefined : JSON.parse(text); } catch { json = undefined; }
    const nextSteps = byId('follow');
    nextSteps.replaceChildren();
    for (const link of parseLinks(response.headers.get('link'))) nextSteps.append(followButton('GET ' + link.rel + ' page (Link rel="' + link.rel + '")', link.url));
    const created = response.headers.get('location');
    if (created !== null) nextSteps.append(followButton('GET the new record (Location)', created));
    const etag = response.headers.get('etag');
    if (etag !== null && request.method === 'GET' && json?.id !== undefined) {
      nextSteps.append(Object.assign(element('button', 'Edit it: PATCH with If-Match: ' + etag, 'secondary'), { type: 'button', onclick: () => prepareEdit(request.target, etag) }));
    }

    const records = byId('records');
    records.replaceChildren();
    if (json !== undefined && Array.isArray(json.data)) records.append(recordsTable(json.data));
    byId('response-body').textContent = json === undefined ? (text === '' ? '(no body)' : text) : JSON.stringify(json, null, 2);
    byId('exchange').scrollIntoView({ block: 'start' });
    return json;
  };

  /** Sends one request, shows the exchange, and gives back the status and the parsed body. */
  const send = async (request) => {
    const headers = new Headers();
    for (const [name, value] of request.headers) headers.append(name, value);
    if (token !== undefined && !headers.has('authorization')) {
      headers.set('Authorization', 'Bearer ' + token);
      request.headers.push(['Authorization', 'Bearer ' + token]);
    }
    const started = performance.now();
    const response = await fetch(request.target, { method: request.method, headers, body: request.body, cache: 'no-store' });
    const text = request.method === 'HEAD' ? '' : await response.text();
    const json = showExchange(request, response, text, performance.now() - started);
    return { status: response.status, json };
  };

  const sendForm = async () => {
    formError.textContent = '';
    const method = fields.method.value;
    const query = fields.query.value.trim().replace(/^\\?/, '');
    const target = fields.path.value.trim() + (query === '' ? '' : '?' + query);
    const body = fields.body.value.trim();
    if (!target.startsWith('/')) throw new Error('the path starts with "/", as in /v1/products');
    if (body !== '' && (method === 'GET' || method === 'HEAD')) throw new Error(method + ' requests have no body: empty the body field');
    await send({ method, target, headers: parseHeaderLines(fields.headers.value), body: body === '' ? undefined : body, shownBody: body });
  };

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    sendForm().catch((error) => { formError.textContent = String(error.message ?? error); });
  });

  const contentTypeLine = (method) =>
    method === 'PATCH' ? 'Content-Type: application/merge-patch+json' : method === 'POST' || method === 'PUT' ? 'Content-Type: application/json' : '';

  /** Puts a request in the form and moves the focus there. */
  const fill = (method, path, query, body, headerLines) => {
    fields.method.value = method;
    fields.path.value = path;
    fields.query.value = query;
    fields.headers.value = headerLines ?? contentTypeLine(method);
    fields.body.value = body;
    byId('try').scrollIntoView({ block: 'start' });
    fields.method.focus();
  };

  const follow = (url) => {
    const [path, query = ''] = url.split('?');
    fill('GET', path, query, '');
    sendForm().catch((error) => { formError.textContent = String(error.message ?? error); });
  };

  const prepareEdit = (target, etag) => {
    const [path] = target.split('?');
    fill('PATCH', path, '', '{\\n}', contentTypeLine('PATCH') + '\\nIf-Match: ' + etag);
    fields.body.focus();
  };

  // "Try it" buttons in the reference carry their request in data attributes.
  document.addEventListener('click', (event) => {
    const button = event.target.closest('button[data-method]');
    if (button === null) return;
    const { method, path, query, example } = button.dataset;
    fill(method, path, query ?? '', example === undefined ? '' : JSON.stringify(JSON.parse(example), null, 2));
  });

  // --- Logging in: POST /v1/tokens, and keep the token in memory only.
  const loginState = byId('login-state');
  const logout = byId('logout');
  byId('login-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const email = byId('login-email').value;
    const password = byId('login-password');
    const body = JSON.stringify({ email, password: password.value });
    const shownBody = JSON.stringify({ email, password: '•'.repeat(8) });
    token = undefined;
    send({ method: 'POST', target: tokensPath, headers: [['Content-Type', 'application/json']], body, shownBody }).then(({ status, json }) => {
      if (status === 201 && json !== undefined) {
        token = json.access_token;
        password.value = '';
        loginState.textContent = 'Logged in as user ' + json.user_id + ' (' + email + '); the token is valid for ' + json.expires_in +
          ' s and is kept only in this page: every request below carries it as Authorization: Bearer.';
        logout.hidden = false;
      } else {
        loginState.textContent = 'Not logged in: ' + statusText(status);
      }
    }, (error) => { loginState.textContent = 'Not logged in: ' + String(error.message ?? error); });
  });
  logout.addEventListener('click', () => {
    token = undefined;
    logout.hidden = true;
    loginState.textContent = 'Logged out: the token is forgotten. Requests now go without Authorization.';
  });
})();
`;
