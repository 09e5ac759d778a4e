// The declaration format's types (README: Your own resources), for embedders who write a
// declaration as an object: `createApp({ resources: { resources: { … } } })`. A file
// and an object are checked the same way (check-declaration.ts) before anything uses them.

import type { JsonValue } from '../records/json.ts';
import type { Audience, Operation } from '../resources/definition.ts';
import type { PropertyType } from './declared-type.ts';

/** A property: JSON Schema (2020-12) as OpenAPI 3.1 uses it, plus plainrest's `x-` extensions. */
export interface PropertySchema {
  /** One type, or one type and "null" for a property that may hold null (`["string", "null"]`). */
  readonly type?: PropertyType | readonly [PropertyType, 'null'] | readonly ['null', PropertyType];
  readonly enum?: readonly (string | number | boolean)[];
  readonly default?: JsonValue;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly pattern?: string;
  readonly format?: 'email' | 'date' | 'date-time' | 'uri' | 'password';
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly multipleOf?: number;
  readonly items?: PropertySchema;
  readonly minItems?: number;
  readonly maxItems?: number;
  readonly properties?: Readonly<Record<string, PropertySchema>>;
  readonly required?: readonly string[];
  readonly readOnly?: boolean;
  readonly writeOnly?: boolean;
  readonly description?: string;
  readonly examples?: readonly JsonValue[];
  readonly 'x-filter'?: boolean;
  readonly 'x-sort'?: boolean;
  /** Words of this string are found by a list's `q` (README: Lists). */
  readonly 'x-search'?: boolean;
  readonly 'x-unique'?: true | 'ignore-case';
  readonly 'x-references'?: string;
  /** What deleting the referenced record does here (README: Your own resources); default `restrict`. */
  readonly 'x-on-delete'?: 'restrict' | 'cascade' | 'set-null';
  readonly 'x-transitions'?: Readonly<Record<string, readonly string[]>>;
  readonly 'x-admin-only'?: boolean;
  readonly 'x-owner-may-set'?: readonly (string | number | boolean)[];
  /** The enum's values a new record may have (a POST's); a PUT or PATCH then follows `x-transitions`. */
  readonly 'x-initial'?: readonly (string | number | boolean)[];
  readonly [extension: `x-${string}`]: unknown;
}

/** A collection's names in one language (`names.pt`). */
export interface CollectionNames {
  readonly collection?: string;
  readonly singular?: string;
  readonly properties?: Readonly<Record<string, string>>;
}

export interface CollectionDeclaration {
  readonly singular: string;
  readonly parent?: string;
  /** What deleting the parent does to records here (README: Your own resources); default `cascade`. */
  readonly 'on-delete'?: 'cascade' | 'restrict';
  readonly owned?: boolean;
  readonly access?: Readonly<Partial<Record<Operation, Audience>>>;
  readonly properties?: Readonly<Record<string, PropertySchema>>;
  readonly required?: readonly string[];
  readonly names?: Readonly<Record<string, CollectionNames>>;
  readonly description?: string;
  /** One record at the collection's path, without an id (README: Your own resources, singletons). */
  readonly 'x-singleton'?: boolean;
  /** The kind of its records' ids (README: Your own resources, ids); default `integer`. */
  readonly 'x-id'?: 'integer' | 'uuid' | 'string';
  readonly [extension: `x-${string}`]: unknown;
}

/** A whole declaration file: `{ "resources": { "<collection>": { … } } }`. */
export interface ResourcesDeclaration {
  readonly resources: Readonly<Record<string, CollectionDeclaration>>;
  readonly [extension: `x-${string}`]: unknown;
}
