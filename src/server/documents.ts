// The documents plainrest serves about itself: the OpenAPI document, the home page made
// from it, and the API index (the links to every top-level collection), each with its links under the base path
// (http/base-path.ts). The first two, and the modules that make them, are loaded when first asked for.

import type { ResourceTable } from '../resources/definition.ts';
import type { Documents } from '../handlers/service-handlers.ts';
import { documentReply } from '../http/respond.ts';
import type { OpenApiView } from '../home/openapi-view.ts';
import type { Reply } from '../http/respond.ts';
import { vocabularyOf } from '../resources/definition.ts';
import { API_PREFIX, indexLinks } from '../declarations/reserved-names.ts';

/**
 * The documents the router serves depend only on the resource table, which is fixed once compiled, and the base path:
 * they are built once per table and base path, not at every start of an app, and only when first asked for, their
 * modules with them, so a server nobody browses holds neither (bench/README.md: idle RSS).
 */
const servedDocuments = new WeakMap<ResourceTable, Map<string, Documents>>();

class DocumentsOnFirstUse implements Documents {
  readonly #resources: ResourceTable;
  readonly #basePath: string;
  readonly #describeApi: () => Promise<Record<string, unknown>>;
  #description: Promise<Record<string, unknown>> | undefined;
  #openApi: Promise<Reply> | undefined;
  #homePage: Promise<Reply> | undefined;
  #apiIndex: Reply | undefined;

  constructor(resources: ResourceTable, basePath: string, describeApi: () => Promise<Record<string, unknown>>) {
    this.#resources = resources;
    this.#basePath = basePath;
    this.#describeApi = describeApi;
  }

  openApi(): Promise<Reply> {
    return (this.#openApi ??= this.#describe().then((description) => documentReply(JSON.stringify(description))));
  }

  homePage(): Promise<Reply> {
    this.#homePage ??= Promise.all([this.#describe(), import('../home/home-page.ts')]).then(
      // The document is built by openapi/document.ts in the shape OpenApiView describes.
      ([description, { homePageReply }]) =>
        homePageReply(description as unknown as OpenApiView, this.#resources, this.#basePath),
    );
    return this.#homePage;
  }

  get apiIndex(): Reply {
    return (this.#apiIndex ??= apiIndexReply(this.#resources, this.#basePath));
  }

  #describe(): Promise<Record<string, unknown>> {
    return (this.#description ??= this.#describeApi());
  }
}

/**
 * The documents of `resources` served under `basePath`, the OpenAPI description made by `describeApi` when first
 * needed.
 */
export function documentsServed(
  resources: ResourceTable,
  basePath: string,
  describeApi: () => Promise<Record<string, unknown>>,
): Documents {
  let byBasePath = servedDocuments.get(resources);
  if (byBasePath === undefined) {
    byBasePath = new Map();
    servedDocuments.set(resources, byBasePath);
  }
  let documents = byBasePath.get(basePath);
  if (documents === undefined) {
    documents = new DocumentsOnFirstUse(resources, basePath, describeApi);
    byBasePath.set(basePath, documents);
  }
  return documents;
}

/** The API's entry point: a link to every top-level collection, in every vocabulary, under `basePath`. */
function apiIndexReply(resources: ResourceTable, basePath: string): Reply {
  const links = indexLinks(basePath);
  for (const language of resources.languages) {
    for (const definition of resources.resources) {
      if (definition.parent !== undefined) continue;
      const name = vocabularyOf(definition, language).collection;
      links[name] = `${basePath}${API_PREFIX}/${name}`;
    }
  }
  return documentReply(JSON.stringify({ name: 'plainrest', version: 'v1', links }), { Vary: 'Accept' });
}
