// The compiled form of a resource declaration (README: Your own resources). A declaration is checked and compiled
// (declarations/check-declaration.ts, compile-declaration.ts) once at start into these objects; routing, validation,
// representation, permissions, lists, the OpenAPI document and the home page all read them, so nothing interprets a
// schema per request.

import type { Fields, JsonObject, JsonValue, StoredRecord } from '../records/json.ts';
import type { LinearPattern } from '../patterns/linear-pattern.ts';
import type { IdKind, RecordId } from '../records/record-id.ts';

/** A collection's plural path segment (`users`, `books`); the declaration chooses them. */
export type CollectionName = string;

/** `en` (the declared names) or a language a declaration gives names in (`pt`). */
export type Language = string;

/**
 * Who may write a field (README: Records, Methods):
 * - `client`: taken from request bodies; PUT removes it when absent (unless required).
 * - `restricted`: only admins may change it (`x-admin-only`), except to the values an
 *   owner may set (`x-owner-may-set`); PUT leaves it when absent.
 * - `write-only`: accepted, never returned (`writeOnly`, a password); PUT leaves it when absent.
 * - `server`: never taken from a body (`readOnly`, ids, timestamps, parent and owner ids):
 *   on POST any value is a 422, on PUT/PATCH a value different from the current one is
 *   a 422 and the current value is harmless.
 */
export type FieldAccess = 'client' | 'restricted' | 'write-only' | 'server';

/** The JSON Schema `type`s a declaration may use, plus an `enum` without one and the server's ids and timestamps. */
export type FieldType = 'id' | 'timestamp' | 'string' | 'integer' | 'number' | 'boolean' | 'array' | 'object' | 'enum';

export type StringFormat = 'email' | 'date' | 'date-time' | 'uri' | 'password';

export interface FieldRule {
  /** The declared (internal) name; other vocabularies' names are in the resource's Vocabulary. */
  readonly name: string;
  readonly type: FieldType;
  readonly access: FieldAccess;
  /** Must be present on create and replace. */
  readonly required?: boolean;
  /**
   * Declared `["type", "null"]`: null is a value it may hold, and a record without it shows it as null (README: Your
   * own resources).
   */
  readonly nullable?: true;
  /**
   * Required of requests, yet a record the server makes may lack it: the email of a user an identity provider's token
   * made (README: Provider tokens). Reads, the stored data's check at start and a database's column allow its absence.
   */
  readonly requiredOfRequestsOnly?: true;
  readonly minLength?: number;
  readonly maxLength?: number;
  /** Compiled once; matched in time linear in the value (patterns/linear-pattern.ts). */
  readonly pattern?: LinearPattern;
  readonly format?: StringFormat;
  readonly minimum?: number;
  readonly maximum?: number;
  readonly exclusiveMinimum?: number;
  readonly exclusiveMaximum?: number;
  readonly multipleOf?: number;
  /** When `multipleOf` is 10^-k (0.01): at most k decimal places, checked exactly on the decimal text. */
  readonly decimalPlaces?: number;
  /** The allowed values of an `enum`. */
  readonly values?: readonly JsonValue[];
  /** An array's element rule. */
  readonly items?: FieldRule;
  readonly minItems?: number;
  readonly maxItems?: number;
  /** An object's members, in declaration order. */
  readonly members?: readonly FieldRule[];
  /** Given on create when the body has none. */
  readonly default?: JsonValue;
  /** `x-unique`: no two records of the collection share the value. */
  readonly unique?: 'exact' | 'ignore-case';
  /** `x-references`: the id of a record of this collection (an array's `items` may hold it: an array of references). */
  readonly references?: CollectionName;
  /**
   * `x-on-delete`: what deleting the referenced record does to a record naming it (README: Your own resources):
   * refused with 409 (`restrict`, the default), this record deleted too (`cascade`) or this property removed
   * (`set-null`).
   */
  readonly onDelete?: 'restrict' | 'cascade' | 'set-null';
  /** That collection's singular noun, for messages and the error code (`unknown_book`). */
  readonly referencedSingular?: string;
  /** `x-transitions`: from each state, the states it may move to. */
  readonly transitions?: Readonly<Record<string, readonly string[]>>;
  /** For a `restricted` field: the values a non-admin owner may still set (cancelling an order). */
  readonly ownerMaySet?: readonly JsonValue[];
  /** `x-initial`: the values a created record may have (an order is created `pending`); absent: any of `values`. */
  readonly initial?: readonly JsonValue[];
  /**
   * A server-set property some records lack: declared `readOnly` with no default, in a collection whose hook does not
   * compute it (a user's `provider_identity`).
   */
  readonly optional?: true;
  /** Where a password's salted hash, or an issued secret's SHA-256, is kept in the stored record (`password_hash`). */
  readonly storedAs?: string;
  /**
   * A secret the server makes when the record is created, shown only in the 201 and kept under `storedAs`: an API key's
   * `secret` as its hash (declarations/built-in-keys.ts), a webhook's signing secret as it is (built-in-webhooks.ts).
   */
  readonly issued?: 'api-key' | 'webhook-secret';
  /** `x-filter`: an equality filter in lists (README: Lists). */
  readonly filter?: boolean;
  /** `x-sort`: a sort key in lists. */
  readonly sort?: boolean;
  /** `x-search`: a list's `q` finds records by the words of this string. */
  readonly search?: boolean;
  /** The schema as declared, for the OpenAPI document (descriptions, examples, unknown `x-` keywords). */
  readonly declared?: Readonly<Record<string, unknown>>;
  /** An `id` rule's kind of id (README: Your own resources, ids): integer when absent. */
  readonly idKind?: 'uuid' | 'string';
  /** Kept in the stored record, never shown nor taken from a body: a singleton's fixed id (SINGLETON_ID_FIELD). */
  readonly hidden?: true;
}

/** Who may perform an operation (README: Your own resources, access): besides admins, who may do everything. */
export type Audience = 'public' | 'user' | 'owner' | 'admin';
export type Operation = 'list' | 'read' | 'create' | 'update' | 'delete';
export type Access = Readonly<Record<Operation, Audience>>;

/**
 * Whose records these are:
 * - `self`: a user owns their own record (`users`);
 * - `root-user`: the user at the root of the parent chain (`/v1/users/{id}/orders`);
 * - `owned`: the user who created the record, kept in its `owner_id`;
 * - `ancestor`: the owner of the nearest owned record above it in the parent chain;
 * - undefined: nobody; only admins may do what `owner` allows.
 */
export type Ownership = 'self' | 'root-user' | 'owned' | 'ancestor';

/** The names of a resource in one vocabulary (README: Paths): the path segment, the noun and every property name. */
export interface Vocabulary {
  readonly language: Language;
  readonly collection: string;
  readonly singular: string;
  /** The client-facing name of a declared (internal) name; names without a translation are shared. */
  name(internal: string): string;
  /** The internal name of a client-facing one, or undefined when the resource has no such name in this vocabulary. */
  internal(external: string): string | undefined;
  /**
   * The words of the query parameters: `page`, `limit`, `sort`, `fields`, `embed` (`pagina`, `limite`, `ordenar`,
   * `campos`, `incluir`).
   */
  readonly parameters: {
    readonly page: string;
    readonly limit: string;
    readonly sort: string;
    readonly fields: string;
    readonly embed: string;
  };
}

/** What a hook may look at when it completes a write (the example's order prices). */
export interface WriteContext {
  /** The record to be stored, with internal names (ids, timestamps and owner not yet set). */
  readonly next: Fields;
  readonly current: StoredRecord | undefined;
  /** The records as this write sees them (the store's own `get`). */
  readonly store: RecordReader;
}

/** Reading one record by collection and id: what a hook or an ownership check needs of a store. */
export interface RecordReader {
  get(collection: string, id: RecordId): StoredRecord | undefined;
}

/**
 * An embedding hook of one collection: computes read-only properties and may refuse the
 * write by throwing `validationError` (422) or a `HookConflict` (409). Synchronous by
 * design: the write is decided and committed in the same turn.
 */
export type ResourceHook = (context: WriteContext) => Fields;

export interface ResourceDefinition {
  readonly collection: CollectionName;
  /**
   * `x-id`: the kind of its records' ids (README: Your own resources, ids): integers the server makes from 1 (the
   * default), uuids the server makes, or strings the client chooses.
   */
  readonly idKind: IdKind;
  /** Singular noun used in messages: "user". */
  readonly singular: string;
  /**
   * A nested resource's parent and the field holding the parent's id (`user_id`); `onDelete`: deleting a parent
   * deletes its records here (`cascade`, the default) or is refused while it has any (`restrict`).
   */
  readonly parent?: {
    readonly definition: ResourceDefinition;
    readonly field: string;
    readonly onDelete: 'cascade' | 'restrict';
  };
  /** The collections nested directly under this one (deleted with a record of it). */
  readonly children: readonly ResourceDefinition[];
  /** The top-level properties of other collections whose value is an id of this one. */
  readonly referencedBy: readonly { readonly definition: ResourceDefinition; readonly path: readonly string[] }[];
  /** This collection's top-level `x-references` properties, each with the collection it names. */
  readonly referencing: readonly { readonly field: string; readonly definition: ResourceDefinition }[];
  readonly ownership: Ownership | undefined;
  readonly access: Access;
  /** In representation (and stored) order: id, parent id, owner id, the declared properties, the timestamps. */
  readonly fields: readonly FieldRule[];
  /** By language, `en` first; every resource has the same languages. */
  readonly vocabularies: ReadonlyMap<Language, Vocabulary>;
  /** Fields of the 201 body when it is not the whole record (a new user answers `{id, name}`). */
  readonly createdFields?: readonly string[];
  /** Records that are made and deleted but never changed (API keys): no PUT or PATCH. */
  readonly immutable?: true;
  /**
   * `x-singleton`: one record, at the collection's path (`/v1/profile`), read, replaced and patched, never listed,
   * created by POST or deleted; stored under SINGLETON_ID, which no path or representation shows.
   */
  readonly singleton?: true;
  /** Its changes are no events of the change feed (webhooks and their deliveries, which deliver the feed). */
  readonly unrecorded?: true;
  /** A list's order when it asks for none (deliveries: newest first); absent, by id ascending. */
  readonly defaultSort?: readonly { readonly field: string; readonly descending: boolean }[];
  readonly hook?: ResourceHook;
  /** The collection's `description`, and its unknown `x-` members, for the OpenAPI document. */
  readonly declared: JsonObject;
}

export const ID_FIELD: FieldRule = { name: 'id', type: 'id', access: 'server', sort: true };
export const CREATED_AT_FIELD: FieldRule = { name: 'created_at', type: 'timestamp', access: 'server', sort: true };
export const UPDATED_AT_FIELD: FieldRule = { name: 'updated_at', type: 'timestamp', access: 'server', sort: true };
export const OWNER_FIELD_NAME = 'owner_id';
/** The id a singleton's one record is stored under (README: Your own resources, singletons). */
export const SINGLETON_ID = 1;
export const SINGLETON_ID_FIELD: FieldRule = { name: 'id', type: 'id', access: 'server', hidden: true };

/**
 * Whether a read shows the field: not a write-only one (a password), nor an issued secret (shown once, on create), nor
 * a hidden one (a singleton's id).
 */
export function isShownOnRead(rule: FieldRule): boolean {
  return rule.access !== 'write-only' && rule.issued === undefined && rule.hidden !== true;
}

/** The properties a list's `q` searches (`x-search`), in declared order. */
export function searchableFields(definition: ResourceDefinition): readonly string[] {
  return definition.fields.filter((rule) => rule.search === true).map((rule) => rule.name);
}

/** The resources whose changes the change feed records: all but the webhooks and their deliveries. */
export function recordedResources(table: ResourceTable): readonly ResourceDefinition[] {
  return table.resources.filter((definition) => definition.unrecorded !== true);
}

/** The vocabulary of `language`, or the declared names when the resource has none in it. */
export function vocabularyOf(definition: ResourceDefinition, language: Language): Vocabulary {
  return definition.vocabularies.get(language) ?? (definition.vocabularies.get('en') as Vocabulary);
}

/** The resources a server serves, compiled from one declaration. */
export interface ResourceTable {
  /** `users` first, then the declaration's collections, each parent before its children. */
  readonly resources: readonly ResourceDefinition[];
  /** `en` first, then every language a declaration names things in. */
  readonly languages: readonly Language[];
  get(collection: string): ResourceDefinition | undefined;
}
