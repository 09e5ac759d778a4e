// The home page's "Live changes" panel, as script text the explorer (explorer-script.ts) inlines in its closure: it
// follows the change feed (README: Events) as Server-Sent Events (WHATWG HTML §9.2), listing each change newest first
// and reconnecting after `retry:` with Last-Event-ID (§9.2.4), so nothing is missed. Like the rest of the page it
// writes only through textContent and createElement.

/**
 * The event stream parser (WHATWG HTML §9.2.6), on its own so a test can run it: `feed(text)` takes any piece
 * of the stream (a line may be split anywhere, even between the CR and LF that end it),
 * each blank line dispatches the event gathered (none without data) and sets
 * `lastEventId` (also from a heartbeat's `id:` alone), `retry:` sets `retry`; comments are skipped.
 */
export const EVENT_STREAM_PARSER = `
  const eventStreamParser = (dispatch, lastEventId = '') => {
    const stream = { lastEventId, retry: undefined };
    let pending = '';
    /** The last piece ended with CR: an LF starting the next one belongs to the same line end. */
    let afterCr = false;
    let idBuffer = lastEventId;
    let type = '';
    let data = [];
    const field = (name, value) => {
      if (name === 'event') type = value;
      else if (name === 'data') data.push(value);
      else if (name === 'id' && !value.includes('\\0')) idBuffer = value;
      else if (name === 'retry' && /^[0-9]+$/.test(value)) stream.retry = Number(value);
    };
    const line = (text) => {
      if (text === '') {
        stream.lastEventId = idBuffer;
        if (data.length > 0) dispatch({ type: type === '' ? 'message' : type, data: data.join('\\n'), lastEventId: idBuffer });
        type = '';
        data = [];
      } else if (!text.startsWith(':')) {
        const colon = text.indexOf(':');
        field(colon === -1 ? text : text.slice(0, colon), colon === -1 ? '' : text.slice(colon + 1).replace(/^ /, ''));
      }
    };
    stream.feed = (piece) => {
      const text = afterCr && piece.startsWith('\\n') ? piece.slice(1) : piece;
      if (text === '') return;
      afterCr = text.endsWith('\\r');
      const lines = (pending + text).split(/\\r\\n|\\r|\\n/);
      pending = lines.pop();
      for (const each of lines) line(each);
    };
    return stream;
  };
`;

/**
 * The panel; it uses the explorer's byId, element, button, meanings, feeds, token and follow. The stream is read with
 * fetch, because an EventSource cannot send the Authorization header (WHATWG HTML §9.2.2 takes no request headers).
 * `reset`, `notice` and `closed` are shown as notices; a 429 or 503 waits Retry-After.
 */
export const LIVE_CHANGES_SCRIPT = `
  // --- Live changes: the change feed as it happens, newest first.
  const liveToggle = byId('live-toggle');
  const liveState = byId('live-state');
  const liveList = byId('live-events');
  /** The items the list keeps; older ones are dropped. */
  const LIVE_KEPT = 50;
  /** The running session ({ controller, path, wake }), or undefined when stopped. */
  let live;
  /** The last event id received, kept across reconnections and restarts: the next Last-Event-ID. */
  let liveLastId = '';
  let liveRetryMs = 1000;
  const seconds = (ms) => ms / 1000 + ' s';
  const afterLast = () => (liveLastId === '' ? '' : ', after event ' + liveLastId + ' (Last-Event-ID)');

  /** The feed in the vocabulary the reference shows. */
  const feedPath = () => feeds[document.querySelector('input[name="vocabulary"]:checked')?.value] ?? feeds.en;

  const addLive = (item) => {
    liveList.prepend(item);
    while (liveList.children.length > LIVE_KEPT) liveList.lastElementChild.remove();
  };

  /** A change: its type, collection, record id, path (a button that GETs it, unless deleted), time and event id. */
  const showChange = (change) => {
    const item = element('li', undefined, 'live-' + change.type);
    item.dataset.eventId = change.id;
    const time = element('time', new Date(change.at).toLocaleTimeString());
    time.dateTime = change.at;
    const place = change.type === 'deleted' ? element('code', change.path) : button(change.path, () => follow(change.path));
    item.append(element('strong', change.type), ' ' + change.collection + ' #' + change.record_id + ' ', place, ' ', time, element('span', ' event ' + change.id, 'hint'));
    addLive(item);
  };

  const NOTICES = {
    reset: (data) => 'the feed no longer holds the events after the last one shown, so changes may be missing here: read the records again. ' + data.detail,
    notice: (data) => data.detail,
    closed: (data) => 'the server ended the stream (' + data.reason + '): ' + data.detail,
  };

  const showNotice = (type, data) => {
    const item = element('li', undefined, 'live-notice');
    item.append(element('strong', type), ' ' + NOTICES[type](data));
    addLive(item);
  };

  const onLiveEvent = ({ type, data }) => {
    let json;
    try { json = JSON.parse(data); } catch { return; }
    if (type === 'created' || type === 'updated' || type === 'deleted') showChange(json);
    else if (NOTICES[type] !== undefined) showNotice(type, json);
  };

  /** A refusal, said as its status and detail: the delay before trying again (429 and 503, after Retry-After), or undefined to stop. */
  const liveRefused = async (response) => {
    let detail = '';
    try { detail = (await response.json()).detail ?? ''; } catch { detail = ''; }
    const said = response.status + ' ' + (meanings[response.status]?.title ?? '') + (detail === '' ? '' : ': ' + detail);
    if (response.status === 429 || response.status === 503) {
      const delay = Number(response.headers.get('retry-after')) * 1000 || liveRetryMs;
      liveState.textContent = said + '. Trying again in ' + seconds(delay) + '.';
      return delay;
    }
    liveState.textContent = 'Stopped: ' + said + (response.status === 401 ? ' Log in again, then start.' : '');
    return undefined;
  };

  /** One connection, read until it ends: the delay before the next, or undefined to stop. */
  const liveConnect = async (session) => {
    const headers = { Accept: 'text/event-stream', Authorization: 'Bearer ' + token };
    if (liveLastId !== '') headers['Last-Event-ID'] = liveLastId;
    liveState.textContent = 'Connecting to ' + session.path + afterLast() + '…';
    const response = await fetch(session.path, { headers, cache: 'no-store', signal: session.controller.signal });
    if (response.status !== 200) return liveRefused(response);
    liveState.textContent = 'Following ' + session.path + afterLast() + ': each change to a record you may read appears at the top as it is stored.';
    const parser = eventStreamParser(onLiveEvent, liveLastId);
    const reader = response.body.getReader();
    const decoder = new TextDecoder();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      parser.feed(decoder.decode(value, { stream: true }));
      liveLastId = parser.lastEventId;
      if (parser.retry !== undefined) liveRetryMs = parser.retry;
    }
    liveState.textContent = 'The stream ended; reconnecting in ' + seconds(liveRetryMs) + afterLast() + '.';
    return liveRetryMs;
  };

  /** A pause that stopping cuts short. */
  const livePause = (session, ms) => new Promise((resolve) => {
    session.wake = resolve;
    setTimeout(resolve, ms);
  });

  /** Connects again and again, until stopped or refused for good. */
  const liveRun = async (session) => {
    while (live === session) {
      let delay;
      try {
        delay = await liveConnect(session);
      } catch {
        if (live !== session) return;
        delay = liveRetryMs;
        liveState.textContent = 'The connection was lost; reconnecting in ' + seconds(delay) + afterLast() + '.';
      }
      if (live !== session) return;
      if (delay === undefined) {
        stopLive();
        return;
      }
      await livePause(session, delay);
    }
  };

  const showRunning = (running) => {
    liveToggle.textContent = running ? 'Stop following changes' : 'Start following changes';
    liveToggle.setAttribute('aria-pressed', String(running));
  };

  /** Stops following (aborting the connection); \`why\`, when given, replaces the state line. */
  const stopLive = (why) => {
    const session = live;
    live = undefined;
    showRunning(false);
    session?.controller.abort();
    session?.wake?.();
    if (why !== undefined) liveState.textContent = why;
  };

  const startLive = () => {
    if (token === undefined) {
      liveState.textContent = 'Log in first: the change feed answers only requests with a token.';
      return;
    }
    const session = { controller: new AbortController(), path: feedPath(), wake: undefined };
    live = session;
    showRunning(true);
    liveRun(session);
  };

  /** Another user, or none: what was followed was theirs, so the next start begins afresh. */
  const forgetLive = (why) => {
    if (live !== undefined) stopLive(why);
    liveLastId = '';
  };

  liveToggle.addEventListener('click', () => {
    if (live === undefined) startLive();
    else stopLive('Stopped.' + (liveLastId === '' ? '' : ' Start again to resume after event ' + liveLastId + ': the changes made meanwhile come first.'));
  });
`;
