// Headless Chromium driven over the DevTools protocol, with no npm package: Chromium is
// started with --remote-debugging-pipe, so it reads protocol commands from its file
// descriptor 3 and writes answers and events to descriptor 4, each message a JSON text
// ended by a NUL byte. The browser test (home-page-browser.test.ts) uses this to load
// the home page, type, click, read the page and take screenshots.

import { spawn, spawnSync } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable, Writable } from 'node:stream';
import { setTimeout as sleep } from 'node:timers/promises';

/** How long a protocol command may take before the test fails instead of hanging. */
const COMMAND_TIMEOUT_MS = 30_000;
/** The names Chromium goes by on PATH. */
export const CHROMIUM_NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

/** The Chromium executable: CHROMIUM_PATH, or the first of the usual names found on PATH; undefined when there is none. */
export function findChromium(): string | undefined {
  const configured = process.env['CHROMIUM_PATH'];
  if (configured !== undefined && configured !== '') return configured;
  for (const name of CHROMIUM_NAMES) {
    const found = spawnSync('sh', ['-c', `command -v ${name}`], { encoding: 'utf8' });
    if (found.status === 0 && found.stdout.trim() !== '') return found.stdout.trim();
  }
  return undefined;
}

type Json = Record<string, unknown>;

interface Pending {
  resolve(result: Json): void;
  reject(error: Error): void;
}

export interface ProtocolEvent {
  readonly method: string;
  readonly params: Json;
  readonly sessionId?: string;
}

/** One browser process and its protocol pipe. */
export class Browser {
  readonly #child: ChildProcess;
  readonly #profile: string;
  readonly #input: Writable;
  readonly #pending = new Map<number, Pending>();
  readonly #listeners = new Set<(event: ProtocolEvent) => void>();
  #nextId = 1;
  #buffered = '';

  private constructor(child: ChildProcess, profile: string) {
    this.#child = child;
    this.#profile = profile;
    this.#input = child.stdio[3] as Writable;
    // A browser that is gone shows as a failed command (#failAll), not as a pipe error.
    this.#input.on('error', () => undefined);
    const output = child.stdio[4] as Readable;
    output.setEncoding('utf8');
    output.on('data', (chunk: string) => this.#receive(chunk));
    child.once('exit', () => this.#failAll(new Error('Chromium exited')));
    child.once('error', (error) => this.#failAll(new Error(`Chromium could not be started: ${error.message}`)));
  }

  #failAll(error: Error): void {
    for (const pending of this.#pending.values()) pending.reject(error);
    this.#pending.clear();
  }

  static async launch(executable: string): Promise<Browser> {
    const profile = await mkdtemp(join(tmpdir(), 'plainrest-chromium-'));
    const args = [
      '--headless',
      '--remote-debugging-pipe',
      '--no-sandbox', // CI runs as root, where Chromium's sandbox refuses to start
      '--disable-gpu',
      '--disable-dev-shm-usage',
      '--no-first-run',
      '--no-default-browser-check',
      '--disable-extensions',
      '--hide-scrollbars',
      // The browser, its renderers and its compositor in one process: a renderer a tab (one per test) each started as a
      // process of its own cost the run about 10 of its 27 s of Chromium's CPU (docs/testing.md, Timing).
      '--single-process',
      `--user-data-dir=${profile}`,
      'about:blank',
    ];
    const child = spawn(executable, args, { stdio: ['ignore', 'ignore', 'pipe', 'pipe', 'pipe'] });
    let errors = '';
    child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (errors = (errors + chunk).slice(-4000)));
    const browser = new Browser(child, profile);
    try {
      await browser.send('Browser.getVersion');
    } catch (error) {
      await browser.close();
      throw new Error(`Chromium did not answer on its pipe: ${String(error)}\n${errors}`);
    }
    return browser;
  }

  /** Sends a command (to a page when `sessionId` is given) and waits for its answer, failing after COMMAND_TIMEOUT_MS. */
  send(method: string, params: Json = {}, sessionId?: string): Promise<Json> {
    const id = this.#nextId++;
    const message = JSON.stringify(
      sessionId === undefined ? { id, method, params } : { id, method, params, sessionId },
    );
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.#pending.delete(id);
        reject(new Error(`Chromium did not answer ${method} within ${COMMAND_TIMEOUT_MS / 1000} s`));
      }, COMMAND_TIMEOUT_MS);
      timer.unref();
      const settle = {
        resolve: (result: Json) => (clearTimeout(timer), resolve(result)),
        reject: (error: Error) => (clearTimeout(timer), reject(error)),
      };
      this.#pending.set(id, settle);
      this.#input.write(`${message}\0`);
    });
  }

  /** Calls `listener` with every event from now on; returns the function that stops it. */
  onEvent(listener: (event: ProtocolEvent) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** A new tab, attached: its protocol session. */
  async newPage(): Promise<Page> {
    const { targetId } = (await this.send('Target.createTarget', { url: 'about:blank' })) as { targetId: string };
    const { sessionId } = (await this.send('Target.attachToTarget', { targetId, flatten: true })) as {
      sessionId: string;
    };
    const page = new Page(this, sessionId);
    await page.send('Page.enable');
    await page.send('Runtime.enable');
    await page.send('Log.enable');
    return page;
  }

  async close(): Promise<void> {
    // A child that never started (no pid) has no exit to wait for.
    if (this.#child.pid !== undefined && this.#child.exitCode === null && this.#child.signalCode === null) {
      const exited = new Promise((resolve) => this.#child.once('exit', resolve));
      this.#child.kill('SIGKILL');
      await exited;
    }
    await rm(this.#profile, { recursive: true, force: true });
  }

  #receive(chunk: string): void {
    this.#buffered += chunk;
    let end = this.#buffered.indexOf('\0');
    while (end !== -1) {
      let message: {
        id?: number;
        result?: Json;
        error?: { message: string };
        method?: string;
        params?: Json;
        sessionId?: string;
      };
      try {
        message = JSON.parse(this.#buffered.slice(0, end)) as typeof message;
      } catch {
        this.#failAll(
          new Error(`Chromium sent a message that is not JSON: ${this.#buffered.slice(0, Math.min(end, 200))}`),
        );
        this.#buffered = this.#buffered.slice(end + 1);
        end = this.#buffered.indexOf('\0');
        continue;
      }
      this.#buffered = this.#buffered.slice(end + 1);
      end = this.#buffered.indexOf('\0');
      if (message.id !== undefined) {
        const pending = this.#pending.get(message.id);
        this.#pending.delete(message.id);
        if (message.error !== undefined) pending?.reject(new Error(message.error.message));
        else pending?.resolve(message.result ?? {});
      } else if (message.method !== undefined) {
        const event: ProtocolEvent = {
          method: message.method,
          params: message.params ?? {},
          ...(message.sessionId === undefined ? {} : { sessionId: message.sessionId }),
        };
        for (const listener of this.#listeners) listener(event);
      }
    }
  }
}

/** Key codes Input.dispatchKeyEvent needs for the keys the test presses. */
const KEYS: Readonly<Record<string, { code: string; keyCode: number; text?: string }>> = {
  Tab: { code: 'Tab', keyCode: 9 },
  Enter: { code: 'Enter', keyCode: 13, text: '\r' },
  Space: { code: 'Space', keyCode: 32, text: ' ' },
};

/** One tab. */
export class Page {
  readonly #browser: Browser;
  readonly sessionId: string;
  readonly #stopListening: () => void;
  /** Console errors, uncaught exceptions and browser log errors (a CSP violation is one), as text. */
  readonly problems: string[] = [];

  constructor(browser: Browser, sessionId: string) {
    this.#browser = browser;
    this.sessionId = sessionId;
    this.#stopListening = browser.onEvent((event) => {
      if (event.sessionId !== sessionId) return;
      if (event.method === 'Runtime.exceptionThrown')
        this.problems.push(`exception: ${JSON.stringify(event.params['exceptionDetails'])}`);
      if (event.method === 'Runtime.consoleAPICalled' && event.params['type'] === 'error')
        this.problems.push(`console.error: ${JSON.stringify(event.params['args'])}`);
      // A 4xx answer is logged as a network error; that is the API at work, not a problem of the page.
      const entry = event.params['entry'] as
        { level?: string; source?: string; text?: string; url?: string } | undefined;
      if (event.method === 'Log.entryAdded' && entry?.level === 'error' && entry.source !== 'network')
        this.problems.push(`log: ${entry.text ?? ''} ${entry.url ?? ''}`);
    });
  }

  send(method: string, params: Json = {}): Promise<Json> {
    return this.#browser.send(method, params, this.sessionId);
  }

  /** Closes the tab and stops listening to its events. */
  async close(): Promise<void> {
    this.#stopListening();
    await this.send('Page.close').catch(() => undefined);
  }

  /** Opens `url` and waits for its load event (failing after COMMAND_TIMEOUT_MS). */
  async navigate(url: string): Promise<void> {
    const loaded = new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`${url} did not finish loading within ${COMMAND_TIMEOUT_MS / 1000} s`)),
        COMMAND_TIMEOUT_MS,
      );
      timer.unref();
      const stop = this.#browser.onEvent((event) => {
        if (event.sessionId === this.sessionId && event.method === 'Page.loadEventFired') {
          stop();
          clearTimeout(timer);
          resolve();
        }
      });
    });
    const { errorText } = (await this.send('Page.navigate', { url })) as { errorText?: string };
    if (errorText !== undefined) throw new Error(`could not open ${url}: ${errorText}`);
    await loaded;
  }

  /** The value of a JavaScript expression in the page (awaited when it is a promise). */
  async evaluate<T>(expression: string): Promise<T> {
    const answer = (await this.send('Runtime.evaluate', { expression, awaitPromise: true, returnByValue: true })) as {
      result: { value?: T };
      exceptionDetails?: { text: string; exception?: { description?: string } };
    };
    if (answer.exceptionDetails !== undefined) {
      throw new Error(
        `in the page: ${answer.exceptionDetails.exception?.description ?? answer.exceptionDetails.text}\n  evaluating: ${expression}`,
      );
    }
    return answer.result.value as T;
  }

  /** Waits until `expression` is truthy in the page (polling every 50 ms), or fails after `timeoutMs` (a hang). */
  async waitFor(expression: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!(await this.evaluate<boolean>(`Boolean(${expression})`))) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for: ${expression}`);
      await sleep(50);
    }
  }

  /** Presses and releases a key (Tab, Enter, Space), with Shift held when `shift` is set. */
  async press(key: keyof typeof KEYS, shift = false): Promise<void> {
    const { code, keyCode, text } = KEYS[key] as (typeof KEYS)[string];
    const common = { key: key === 'Space' ? ' ' : key, code, windowsVirtualKeyCode: keyCode, modifiers: shift ? 8 : 0 };
    await this.send('Input.dispatchKeyEvent', { type: 'keyDown', ...common, ...(text === undefined ? {} : { text }) });
    await this.send('Input.dispatchKeyEvent', { type: 'keyUp', ...common });
  }

  /** Types text into the focused control, as a keyboard would. */
  async type(text: string): Promise<void> {
    await this.send('Input.insertText', { text });
  }

  /** Lays the page out at this viewport size (a phone when `mobile`). */
  async resize(width: number, height: number, mobile = false): Promise<void> {
    await this.send('Emulation.setDeviceMetricsOverride', { width, height, deviceScaleFactor: 1, mobile });
  }

  /** A PNG of the visible part of the page. */
  async screenshot(): Promise<Buffer> {
    const { data } = (await this.send('Page.captureScreenshot', { format: 'png' })) as { data: string };
    return Buffer.from(data, 'base64');
  }
}
