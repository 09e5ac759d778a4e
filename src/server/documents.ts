// The documents plainrest serves about itself: the OpenAPI document, the home page made
// from it, and the API index (the links to every top-level collection). The first two, and
// the modules that make them, are loaded when first asked for.

import type { ResourceTable } from '../resources/definition.ts';
import type { Documents } from '../handlers/service-handlers.ts';
import { documentReply } from '../http/respond.ts';
import type { OpenApiView } from '../home/openapi-view.ts';
import type { Reply } from '../http/respond.ts';
import { vocabularyOf } from '../resources/definition.ts';
import { API_PREFIX, indexLinks } from '../declarations/reserved-names.ts';

/**
 * The documents the router serves depend only on the resource table, which is fixed once compiled: they are built once
 * per table, not at every start of an app, and only when first asked for, their modules with them, so a server nobody
 * browses holds neither (bench/README.md: idle RSS).
 */
const servedDocuments = new WeakMap<ResourceTable, Documents>();

class DocumentsOnFirstUse implements Documents {
  readonly #resources: ResourceTable;
  readonly #describeApi: () => Promise<Record<string, unknown>>;
  #description: Promise<Record<string, unknown>> | undefined;
  #openApi: Promise<Reply> | undefined;
  #homePage: Promise<Reply> | undefined;
  #apiIndex: Reply | undefined;

  constructor(resources: ResourceTable, describeApi: () => Promise<Record<string, unknown>>) {
    this.#resources = resources;
    this.#describeApi = describeApi;
  }

  openApi(): Promise<Reply> {
    return (this.#openApi ??= this.#describe().then((description) => documentReply(JSON.stringify(description))));
  }

  homePage(): Promise<Reply> {
    this.#homePage ??= Promise.all([this.#describe(), import('../home/home-page.ts')]).then(
      // The document is built by openapi/document.ts in the shape OpenApiView describes.
      ([description, { homePageReply }]) => homePageReply(description as unknown as OpenApiView, this.#resources),
    );
    return this.#homePage;
  }

  get apiIndex(): Reply {
    return (this.#apiIndex ??= apiIndexReply(this.#resources));
  }

  #describe(): Promise<Record<string, unknown>> {
    return (this.#description ??= this.#describeApi());
  }
}

/** The documents of `resources`, the OpenAPI description made by `describeApi` when first needed. */
export function documentsServed(
  resources: ResourceTable,
  describeApi: () => Promise<Record<string, unknown>>,
): Documents {
  let documents = servedDocuments.get(resources);
  if (documents === undefined) {
    documents = new DocumentsOnFirstUse(resources, describeApi);
    servedDocuments.set(resources, documents);
  }
  return documents;
}

/** The API's entry point: a link to every top-level collection, in every vocabulary. */
function apiIndexReply(resources: ResourceTable): Reply {
  const links = indexLinks();
  for (const language of resources.languages) {
    for (const definition of resources.resources) {
      if (definition.parent !== undefined) continue;
      const name = vocabularyOf(definition, language).collection;
      links[name] = `${API_PREFIX}/${name}`;
    }
  }
  return documentReply(JSON.stringify({ name: 'plainrest', version: 'v1', links }), { Vary: 'Accept' });
}
