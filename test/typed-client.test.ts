// A typed client generated from the OpenAPI document (README: The OpenAPI document): openapi-typescript turns the
// served document into types, offline, and a client written against them alone (plain fetch, no cast, no `any`) reads
// a list, an item, a fields= answer, a user with their orders embedded and the change feed as JSON. It must compile
// under `strict` with no diagnostic, and, run against the server, find what the server answers. What TypeScript makes
// of it is remembered (remembered.ts) until the document, this file or an installed package changes.

import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import type ts from 'typescript';
import type { TestServer } from './helpers.ts';
import { startTestServer, temporaryDirectory } from './helpers.ts';
import { remembered } from './remembered.ts';

/**
 * The client, as its author would write it: its types come from `./api.js`, the generated declarations. Each body is
 * the JSON content of its operation's 200; `@ts-expect-error` marks what the types must refuse.
 */
const CLIENT = `
import type { components, paths } from './api.js';

type Schemas = components['schemas'];

/** The JSON body a path's GET answers with 200 (the change feed's list, not its stream). */
type JsonBody<P extends keyof paths> = paths[P] extends {
  get: { responses: { 200: { content: { 'application/json': infer Body } } } };
}
  ? Body
  : never;

export async function tour(base: string, token: string) {
  async function read<P extends keyof paths>(_operation: P, target: string): Promise<JsonBody<P>> {
    const response = await fetch(new URL(target, base), {
      headers: { Authorization: 'Bearer ' + token, Accept: 'application/json' },
    });
    if (response.status !== 200) throw new Error(target + ': ' + response.status);
    return response.json();
  }

  const products = await read('/v1/products', '/v1/products?limit=2&sort=-price');
  const names: string[] = products.data.map((product) => product.name ?? '');
  const pages: number = products.meta.pages;
  const next: string | null = products.links.next;

  const product = await read('/v1/products/{product_id}', '/v1/products/4');
  const price: number | undefined = product.price;

  const selection = await read('/v1/products/{product_id}', '/v1/products/4?fields=category');
  const category: string | undefined = selection.category;
  // A fields= answer holds only the properties named, and the read's type says so.
  const onlyCategory: JsonBody<'/v1/products/{product_id}'> = { category: 'tea' };
  // @ts-expect-error and nothing a product does not have
  const withColour: JsonBody<'/v1/products/{product_id}'> = { category: 'tea', colour: 'green' };

  const user = await read('/v1/users/{user_id}', '/v1/users/1?embed=orders');
  const orders: Schemas['Order'][] = user._embedded?.orders?.data ?? [];
  const spent: number = orders.reduce((sum, order) => sum + order.total, 0);
  const statuses: Schemas['Order']['status'][] = orders.map((order) => order.status);

  const feed = await read('/v1/events', '/v1/events?limit=3');
  const changes: string[] = feed.data.map((event) => event.type + ' ' + event.collection + ' ' + event.record_id);
  const feedTotal: number = feed.meta.total;

  const newOrder: Schemas['OrderCreate'] = { items: [{ product_id: 1, quantity: 2 }], status: 'pending' };
  // @ts-expect-error a new order is created pending (x-initial)
  const paidOrder: Schemas['OrderCreate'] = { items: [{ product_id: 1, quantity: 1 }], status: 'paid' };

  return {
    names,
    pages,
    next,
    price,
    category,
    onlyCategory,
    withColour,
    spent,
    statuses,
    changes,
    feedTotal,
    newOrder,
    paidOrder,
  };
}
`;

/**
 * The checks under which the client must compile: `strict`, nothing emitted, fetch from the DOM's library. TypeScript's
 * own libraries are read but not checked themselves (a fifth of the test's CPU); the generated types and the client are.
 */
const compilerOptions = (typescript: typeof ts): ts.CompilerOptions => ({
  strict: true,
  noEmit: true,
  target: typescript.ScriptTarget.ES2022,
  module: typescript.ModuleKind.ESNext,
  moduleResolution: typescript.ModuleResolutionKind.Bundler,
  lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
  types: [],
  skipDefaultLibCheck: true,
});

let api: TestServer;
let directory: { path: string; remove: () => Promise<void> };
before(async () => {
  api = await startTestServer({ seed: true });
  directory = await temporaryDirectory();
});
after(async () => {
  await api.close();
  await directory.remove();
});

/** Casts, assertions of non-null and `any` written in a source file. */
function castsIn(typescript: typeof ts, source: ts.SourceFile): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (
      typescript.isAsExpression(node) ||
      typescript.isTypeAssertionExpression(node) ||
      typescript.isNonNullExpression(node)
    )
      found.push(node.getText(source));
    if (node.kind === typescript.SyntaxKind.AnyKeyword) found.push('any');
    typescript.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** What TypeScript makes of the client against the types generated from a document. */
interface Compiled {
  /** The diagnostics, as tsc prints them: none expected. */
  readonly diagnostics: string;
  readonly casts: string[];
  /** The client as JavaScript, to run. */
  readonly runnable: string;
}

/**
 * The types generated from `document` (its JSON), and the client compiled against them, in `directory`. Remembered
 * (remembered.ts): the same document, client and packages compile the same, and loading openapi-typescript and
 * TypeScript and checking cost about 6 s of CPU.
 */
function compileClient(document: string, directory: string): Promise<Compiled> {
  return remembered('typed-client', import.meta.url, [document, CLIENT], async () => {
    const [{ default: openapiTS, astToString }, { default: typescript }] = await Promise.all([
      import('openapi-typescript'),
      import('typescript'),
    ]);
    const types = astToString(await openapiTS(document));
    const client = join(directory, 'client.ts');
    await writeFile(join(directory, 'api.d.ts'), types);
    await writeFile(client, CLIENT);

    const program = typescript.createProgram([client], compilerOptions(typescript));
    const host: ts.FormatDiagnosticsHost = {
      getCanonicalFileName: (name) => name,
      getCurrentDirectory: () => directory,
      getNewLine: () => '\n',
    };
    const source = program.getSourceFile(client);
    assert.ok(source !== undefined);
    return {
      diagnostics: typescript.formatDiagnostics(typescript.getPreEmitDiagnostics(program), host),
      casts: castsIn(typescript, source),
      runnable: typescript.transpileModule(CLIENT, {
        compilerOptions: { target: typescript.ScriptTarget.ES2022, module: typescript.ModuleKind.ESNext },
      }).outputText,
    };
  });
}

test('types generated from the document type a real client under strict, with no cast and no diagnostic', async () => {
  const document = await api.as(undefined).get('/v1/openapi.json');
  assert.equal(document.status, 200);
  const compiled = await compileClient(document.text, directory.path);
  assert.equal(compiled.diagnostics, '');
  assert.deepEqual(compiled.casts, [], 'the client casts nothing and writes no any');

  // Run, the client finds what the server answers.
  const runnable = join(directory.path, 'client.mjs');
  await writeFile(runnable, compiled.runnable);
  const { tour } = await import(pathToFileURL(runnable).href);
  const found = await tour(`${api.url}/`, api.token);
  const products = (await api.get('/v1/products?limit=2&sort=-price')).body;
  const orders = (await api.get('/v1/users/1/orders')).body.data;
  const feed = (await api.get('/v1/events?limit=3')).body;
  assert.deepEqual(found, {
    names: products.data.map((product: { name: string }) => product.name),
    pages: products.meta.pages,
    next: products.links.next,
    price: 6.8,
    category: 'tea',
    onlyCategory: { category: 'tea' },
    withColour: { category: 'tea', colour: 'green' },
    spent: orders.reduce((sum: number, order: { total: number }) => sum + order.total, 0),
    statuses: orders.map((order: { status: string }) => order.status),
    changes: feed.data.map(
      (event: { type: string; collection: string; record_id: number }) =>
        `${event.type} ${event.collection} ${event.record_id}`,
    ),
    feedTotal: feed.meta.total,
    newOrder: { items: [{ product_id: 1, quantity: 2 }], status: 'pending' },
    paidOrder: { items: [{ product_id: 1, quantity: 1 }], status: 'paid' },
  });
});
