// The parts of the OpenAPI document (openapi/document.ts) the home page reads, as
// types: what a path, an operation, a parameter and a schema carry. The document is
// generated, not parsed from outside, so this is a view of a known shape, not a check.

export interface SchemaView {
  readonly $ref?: string;
  readonly type?: string | readonly string[];
  readonly format?: string;
  readonly description?: string;
  readonly enum?: readonly string[];
  readonly minimum?: number;
  readonly maximum?: number;
  /** Money: at most this many decimals (openapi/schemas.ts says why this is not multipleOf). */
  readonly 'x-max-decimal-places'?: number;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly readOnly?: boolean;
  readonly writeOnly?: boolean;
  readonly required?: readonly string[];
  readonly properties?: Readonly<Record<string, SchemaView>>;
  readonly items?: SchemaView;
  /** A list's items: the record, or a `fields=` selection of it (openapi/document.ts), the record first. */
  readonly anyOf?: readonly SchemaView[];
  readonly examples?: readonly unknown[];
}

export interface ParameterView {
  readonly name: string;
  readonly in: 'path' | 'query' | 'header';
  readonly description?: string;
  readonly schema?: SchemaView;
}

export interface ResponseView {
  readonly description: string;
  readonly content?: Readonly<Record<string, { readonly schema: SchemaView }>>;
}

export interface OperationView {
  readonly operationId?: string;
  readonly summary: string;
  /** Who may call it. */
  readonly description?: string;
  readonly tags?: readonly string[];
  /** An empty list: the operation needs no token. */
  readonly security?: readonly unknown[];
  readonly parameters?: readonly ParameterView[];
  readonly requestBody?: { readonly content: Readonly<Record<string, { readonly schema: SchemaView }>> };
  readonly responses: Readonly<Record<string, ResponseView>>;
}

export const HTTP_METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
type HttpMethod = (typeof HTTP_METHODS)[number];

export type PathItemView = { readonly parameters?: readonly ParameterView[] } & {
  readonly [method in HttpMethod]?: OperationView;
};

export interface OpenApiView {
  readonly info: { readonly title: string; readonly description: string };
  readonly paths: Readonly<Record<string, PathItemView>>;
  readonly components: { readonly schemas: Readonly<Record<string, SchemaView>> };
}

/** Follows a local `$ref` (`#/components/schemas/Name`); other schemas are returned as they are. */
export function resolve(document: OpenApiView, schema: SchemaView): SchemaView {
  if (schema.$ref === undefined) return schema;
  return document.components.schemas[schema.$ref.slice('#/components/schemas/'.length)] ?? {};
}
