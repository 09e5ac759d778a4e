// The home page's script: log in, send any request, show the whole exchange. Plain browser JavaScript kept as text,
// inlined in a <script> element whose hash the Content-Security-Policy lists, so the page needs no build step and no
// other file. It writes only through textContent and createElement (never HTML from a string), which lets the policy
// require Trusted Types; the token stays in a variable of its closure, never in storage, gone on reload.

import { EVENT_STREAM_PARSER, LIVE_CHANGES_SCRIPT } from './live-changes-script.ts';

/** The script text; the "Live changes" panel (live-changes-script.ts) is inlined in its closure. */
export const EXPLORER_SCRIPT = `
'use strict';
(() => {
  const byId = (id) => document.getElementById(id);
  const { meanings, situations, tokensPath, serverFields, editablePaths, feeds, examplePath } = JSON.parse(byId('explorer-data').textContent);
  const editable = editablePaths.map((pattern) => new RegExp(pattern));
  let token;
  let busy = false;

  // --- The vocabulary switch: show the reference in English or Portuguese paths.
  const showVocabulary = (language) => {
    for (const part of document.querySelectorAll('[data-vocabulary]')) part.hidden = part.dataset.vocabulary !== language;
  };
  for (const radio of document.querySelectorAll('input[name="vocabulary"]')) {
    radio.addEventListener('change', () => showVocabulary(radio.value));
    if (radio.checked) showVocabulary(radio.value);
  }

  // --- Reading the form.
  const fields = { method: byId('request-method'), path: byId('request-path'), query: byId('request-query'), headers: byId('request-headers'), body: byId('request-body') };
  const formError = byId('request-error');
  const statusLine = byId('status-line');

  /** Headers a page may not set (the Fetch standard's forbidden request headers). */
  const FORBIDDEN = /^(accept-charset|accept-encoding|access-control-request-headers|access-control-request-method|connection|content-length|cookie|cookie2|date|dnt|expect|host|keep-alive|origin|referer|set-cookie|te|trailer|transfer-encoding|upgrade|via|proxy-.*|sec-.*)$/i;

  /** "Name: value" lines → pairs; throws on a line without a name, or a header the browser will not send. */
  const parseHeaderLines = (text) => text.split('\\n').map((line) => line.trim()).filter((line) => line !== '').map((line) => {
    const colon = line.indexOf(':');
    if (colon < 1) throw new Error('each header line reads "Name: value", not: ' + line);
    const name = line.slice(0, colon).trim();
    if (FORBIDDEN.test(name)) throw new Error('a browser does not let a page set ' + name + ': remove that line');
    return [name, line.slice(colon + 1).trim()];
  });

  /** The request target (path and query, percent-encoded as a browser sends them); only this server's paths. */
  const requestTarget = (pathText, queryText) => {
    const path = pathText.trim();
    if (!path.startsWith('/') || path.startsWith('//')) throw new Error('the path starts with one "/", as in ' + examplePath + ': requests go to this server only');
    if (path.includes('#') || queryText.includes('#')) throw new Error('remove the "#": what follows it never reaches the server');
    const url = new URL(path, location.origin);
    const query = queryText.trim().replace(/^[?]/, '');
    if (query !== '') url.search = url.search === '' ? query : url.search.slice(1) + '&' + query;
    return url.pathname + url.search;
  };

  // --- Showing an answer.
  const element = (name, text, className) => {
    const node = document.createElement(name);
    if (text !== undefined) node.textContent = text;
    if (className !== undefined) node.className = className;
    return node;
  };

  /** "201 Created: …": the meaning for this method and path when there is one, else the status's own. */
  const explain = (status, method, path) => {
    const title = meanings[status]?.title ?? '';
    const meaning = situations[method + ' ' + path + ' ' + status] ?? situations[method + ' ' + status] ?? meanings[status]?.meaning;
    return status + (title === '' ? '' : ' ' + title) + (meaning === undefined ? '' : ': ' + meaning);
  };

  /** A table of records (a list's data), columns in the order the records give them. */
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

  const button = (label, action) => Object.assign(element('button', label, 'secondary'), { type: 'button', onclick: action });

  /** What may follow this answer: the Link rels, the new record's Location, editing with If-Match, reading again after a 412. */
  const nextSteps = (request, response, json) => {
    const steps = [];
    for (const link of parseLinks(response.headers.get('link'))) steps.push(button('GET ' + link.rel + ' page (Link rel="' + link.rel + '")', () => follow(link.url)));
    const created = response.headers.get('location');
    if (created !== null) steps.push(button('GET the new record (Location)', () => follow(created)));
    const etag = response.headers.get('etag');
    const path = request.target.split('?')[0];
    const patchable = editable.some((pattern) => pattern.test(path));
    if (etag !== null && response.status === 200 && ['GET', 'PUT', 'PATCH'].includes(request.method) && json?.id !== undefined && patchable) {
      steps.push(button('Edit it: PATCH with If-Match: ' + etag, () => prepareEdit(path, etag, json)));
    }
    if (response.status === 412) steps.push(button('GET it again (its current ETag)', () => follow(path)));
    return steps;
  };

  const showExchange = (request, response, text, milliseconds) => {
    byId('exchange-parts').hidden = false;
    const shown = request.headers.map(([name, value]) => name + ': ' + value);
    if (request.token !== undefined) shown.push('Authorization: Bearer ' + request.token.slice(0, 12) + '… (your token, cut short here)');
    if (!request.headers.some(([name]) => name.toLowerCase() === 'accept')) shown.push('Accept: */* (added by the browser)');
    if (request.body !== undefined && !request.headers.some(([name]) => name.toLowerCase() === 'content-type')) {
      shown.push('Content-Type: text/plain;charset=UTF-8 (added by the browser, as no Content-Type was given)');
    }
    byId('request-text').textContent = [request.method + ' ' + request.target + ' HTTP/1.1', 'Host: ' + location.host, ...shown]
      .join('\\n') + (request.shownBody ? '\\n\\n' + request.shownBody : '');

    let json;
    try { json = text === '' ? undefined : JSON.parse(text); } catch { json = undefined; }
    const path = request.target.split('?')[0];
    const said = response.status >= 400 && typeof json?.detail === 'string' ? ' The server says: ' + json.detail : '';
    statusLine.replaceChildren(element('strong', explain(response.status, request.method, path)), element('span', said), element('span', ' (' + Math.round(milliseconds) + ' ms)', 'hint'));
    statusLine.className = 'status status-' + String(response.status)[0];
    const headerLines = ['HTTP/1.1 ' + response.status + ' ' + (meanings[response.status]?.title ?? '')];
    for (const [name, value] of response.headers) headerLines.push(name + ': ' + value);
    byId('response-headers').textContent = headerLines.join('\\n');
    byId('follow').replaceChildren(...nextSteps(request, response, json));
    const records = byId('records');
    records.replaceChildren();
    records.hidden = !Array.isArray(json?.data);
    if (Array.isArray(json?.data)) records.append(recordsTable(json.data));
    byId('response-body').textContent = json === undefined ? (text === '' ? '(no body)' : text) : JSON.stringify(json, null, 2);
    return json;
  };

  /**
   * Sends one request, shows the exchange, and gives back the status and the parsed body.
   * The token goes along unless the request is anonymous (logging in) or names its own Authorization.
   */
  const send = async (request, { reveal = true, anonymous = false } = {}) => {
    const headers = new Headers();
    for (const [name, value] of request.headers) headers.append(name, value);
    const withToken = !anonymous && token !== undefined && !headers.has('authorization');
    if (withToken) headers.set('Authorization', 'Bearer ' + token);
    const exchange = { ...request, token: withToken ? token : undefined };
    const started = performance.now();
    let response;
    try {
      response = await fetch(request.target, { method: request.method, headers, body: request.body, cache: 'no-store' });
    } catch {
      statusLine.replaceChildren(element('strong', 'No answer: the server could not be reached (is it still running?)'));
      statusLine.className = 'status status-5';
      byId('exchange-parts').hidden = true;
      throw new Error('the server could not be reached (is it still running?)');
    }
    const text = request.method === 'HEAD' ? '' : await response.text();
    const json = showExchange(exchange, response, text, performance.now() - started);
    if (reveal) byId('exchange').scrollIntoView({ block: 'start' });
    return { status: response.status, json };
  };

  const sendForm = async () => {
    formError.textContent = '';
    const method = fields.method.value;
    const target = requestTarget(fields.path.value, fields.query.value);
    const body = fields.body.value.trim();
    if (body !== '' && (method === 'GET' || method === 'HEAD')) throw new Error(method + ' requests have no body: empty the body field');
    const headers = parseHeaderLines(fields.headers.value);
    return send({ method, target, headers, body: body === '' ? undefined : body, shownBody: body });
  };

  /** Runs one request at a time; a failure before or instead of an answer is shown under the form. */
  const run = async (action) => {
    if (busy) {
      formError.textContent = 'the last request has not been answered yet: send again once its answer shows';
      return;
    }
    busy = true;
    byId('exchange').setAttribute('aria-busy', 'true');
    try {
      return await action();
    } catch (error) {
      formError.textContent = String(error.message ?? error);
    } finally {
      busy = false;
      byId('exchange').removeAttribute('aria-busy');
    }
  };

  byId('request-form').addEventListener('submit', (event) => {
    event.preventDefault();
    run(sendForm);
  });

  const contentTypeLine = (method) =>
    method === 'PATCH' ? 'Content-Type: application/merge-patch+json' : method === 'POST' || method === 'PUT' ? 'Content-Type: application/json' : '';

  /** Puts a request in the form. */
  const fill = (method, path, query, body, headerLines) => {
    fields.method.value = method;
    fields.path.value = path;
    fields.query.value = query;
    fields.headers.value = headerLines ?? contentTypeLine(method);
    fields.body.value = body;
    formError.textContent = '';
  };

  /** Sends a GET for a link from an answer, and moves the focus to the new answer's status. */
  const follow = (url) => {
    if (busy) return;
    const [path, query = ''] = url.split('?');
    fill('GET', path, query, '');
    run(sendForm).then(() => statusLine.focus());
  };

  /** A PATCH of the record just read, guarded by its ETag: every field but those the server sets, to change as you like. */
  const prepareEdit = (path, etag, record) => {
    const fieldsToEdit = Object.fromEntries(Object.entries(record).filter(([name]) => !serverFields.includes(name)));
    fill('PATCH', path, '', JSON.stringify(fieldsToEdit, null, 2), contentTypeLine('PATCH') + '\\nIf-Match: ' + etag);
    byId('try').scrollIntoView({ block: 'start' });
    fields.body.focus();
  };

  // "Try it" buttons in the reference carry their request in data attributes.
  document.addEventListener('click', (event) => {
    const trigger = event.target.closest('button[data-method]');
    if (trigger === null) return;
    const { method, path, query, example } = trigger.dataset;
    fill(method, path, query ?? '', example === undefined ? '' : JSON.stringify(JSON.parse(example), null, 2));
    byId('try').scrollIntoView({ block: 'start' });
    fields.method.focus();
  });

${EVENT_STREAM_PARSER}
${LIVE_CHANGES_SCRIPT}
  // --- Logging in: POST to tokensPath (/v1/tokens), and keep the token in memory only.
  const loginState = byId('login-state');
  const logout = byId('logout');
  const loggedOut = (why) => {
    forgetLive('Stopped: no one is logged in now.');
    token = undefined;
    logout.hidden = true;
    loginState.textContent = why;
  };
  byId('login-form').addEventListener('submit', (event) => {
    event.preventDefault();
    const email = byId('login-email').value;
    const password = byId('login-password');
    const body = JSON.stringify({ email, password: password.value });
    const shownBody = JSON.stringify({ email, password: '•'.repeat(8) });
    const request = { method: 'POST', target: tokensPath, headers: [['Content-Type', 'application/json']], body, shownBody };
    run(async () => {
      let answer;
      try {
        answer = await send(request, { reveal: false, anonymous: true });
      } catch {
        loggedOut('Not logged in: the server could not be reached (is it still running?)');
        return;
      }
      const { status, json } = answer;
      if (status === 201 && json !== undefined) {
        forgetLive('Stopped: you logged in again; start to follow the changes this user may read.');
        token = json.access_token;
        password.value = '';
        logout.hidden = false;
        loginState.textContent = 'Logged in as user ' + json.user_id + ' (' + email + '); the token is valid for ' + json.expires_in +
          ' s and is kept only in this page: every request you send carries it as Authorization: Bearer. The exchange is shown below.';
      } else {
        loggedOut('Not logged in: ' + explain(status, 'POST', tokensPath));
      }
    }).then(() => loginState.focus());
  });
  logout.addEventListener('click', () => {
    loggedOut('Logged out: the token is forgotten, and requests now go without Authorization.');
    byId('login-email').focus();
  });
})();
`;
