// Test support: a real plainrest server on port 0 with fresh state per test, and a
// small fetch wrapper that returns status, headers and the parsed JSON body.

import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { RunningServer, ServerOptions } from '../src/index.js';
import { startServer } from '../src/index.js';

export interface TestResponse {
  readonly status: number;
  readonly headers: Headers;
  /** Parsed JSON, or undefined for an empty body. */
  readonly body: any;
  readonly text: string;
}

export interface RequestOptions {
  /** Sent as JSON unless it is already a string. */
  readonly body?: unknown;
  readonly headers?: Record<string, string>;
}

export interface TestServer {
  readonly url: string;
  readonly server: RunningServer;
  request(method: string, path: string, options?: RequestOptions): Promise<TestResponse>;
  get(path: string, headers?: Record<string, string>): Promise<TestResponse>;
  post(path: string, body: unknown, headers?: Record<string, string>): Promise<TestResponse>;
  put(path: string, body: unknown, headers?: Record<string, string>): Promise<TestResponse>;
  patch(path: string, body: unknown, headers?: Record<string, string>): Promise<TestResponse>;
  delete(path: string, headers?: Record<string, string>): Promise<TestResponse>;
  close(): Promise<void>;
}

/** A server in memory only (dataDir null), empty unless `seed: true` is passed. */
export async function startTestServer(options: ServerOptions = {}): Promise<TestServer> {
  const server = await startServer({ port: 0, dataDir: null, seed: false, ...options });
  return wrap(server);
}

export function wrap(server: RunningServer): TestServer {
  const request = async (method: string, path: string, options: RequestOptions = {}): Promise<TestResponse> => {
    const headers: Record<string, string> = { ...options.headers };
    let body: string | undefined;
    if (options.body !== undefined) {
      body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body);
      if (!Object.keys(headers).some((name) => name.toLowerCase() === 'content-type')) {
        headers['content-type'] = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
      }
    }
    const response = await fetch(server.url + path, { method, headers, body });
    const text = await response.text();
    let parsed: unknown;
    if (text !== '') parsed = JSON.parse(text);
    return { status: response.status, headers: response.headers, body: parsed, text };
  };
  return {
    url: server.url,
    server,
    request,
    get: (path, headers) => request('GET', path, { headers }),
    post: (path, body, headers) => request('POST', path, { body, headers }),
    put: (path, body, headers) => request('PUT', path, { body, headers }),
    patch: (path, body, headers) => request('PATCH', path, { body, headers }),
    delete: (path, headers) => request('DELETE', path, { headers }),
    close: () => server.close(),
  };
}

/** A fresh temporary directory, removed by the returned cleanup function. */
export async function temporaryDirectory(): Promise<{ path: string; remove: () => Promise<void> }> {
  const path = await mkdtemp(join(tmpdir(), 'plainrest-test-'));
  return { path, remove: () => rm(path, { recursive: true, force: true }) };
}

/** Creates a product and returns its record. */
export async function createProduct(
  api: TestServer,
  fields: Partial<{ name: string; category: string; price: number; description: string }> = {},
): Promise<any> {
  const response = await api.post('/v1/products', { name: 'Widget', category: 'tools', price: 9.99, ...fields });
  if (response.status !== 201) throw new Error(`product not created: ${response.status} ${response.text}`);
  return response.body;
}

/** Creates a user and returns its id. */
export async function createUser(api: TestServer, fields: Record<string, unknown> = {}): Promise<number> {
  const unique = Math.random().toString(36).slice(2, 10);
  const response = await api.post('/v1/users', { name: 'Test User', email: `user-${unique}@example.com`, ...fields });
  if (response.status !== 201) throw new Error(`user not created: ${response.status} ${response.text}`);
  return response.body.id as number;
}

/** The problem-details members every error body carries (CONTRACT §7). */
export function problemShape(status: number, code: string): Record<string, unknown> {
  return { type: 'about:blank', status, code };
}
