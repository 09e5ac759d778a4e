// Compiling a checked declaration into the resource table the server runs on (README: Your own resources), once at
// start: one ResourceDefinition per collection, `users` first (built-in-users.ts with what a declaration adds), their
// `keys` (built-in-keys.ts), the `webhooks` and their `deliveries` (built-in-webhooks.ts), each parent before its
// children, with its field rules (compile-rule.ts), access, ownership, vocabularies and hook.

import type { JsonObject, JsonValue } from '../records/json.ts';
import type {
  Access,
  FieldRule,
  Language,
  Ownership,
  ResourceDefinition,
  ResourceHook,
  ResourceTable,
  Vocabulary,
} from '../resources/definition.ts';
import {
  CREATED_AT_FIELD,
  ID_FIELD,
  OWNER_FIELD_NAME,
  SINGLETON_ID_FIELD,
  UPDATED_AT_FIELD,
} from '../resources/definition.ts';
import { buildVocabulary } from '../resources/vocabulary.ts';
import { compileRule } from './compile-rule.ts';
import {
  BUILT_IN_USER_ACCESS,
  BUILT_IN_USER_PROPERTIES,
  BUILT_IN_USERS,
  REQUIRED_OF_REQUESTS_ONLY,
} from './built-in-users.ts';
import { API_KEY_SECRET, API_KEY_TRAITS, API_KEYS, BUILT_IN_KEYS } from './built-in-keys.ts';
import {
  BUILT_IN_DELIVERIES,
  builtInWebhooks,
  DELIVERIES,
  DELIVERY_TRAITS,
  WEBHOOK_HIDDEN_RULES,
  WEBHOOK_SECRET,
  WEBHOOK_TRAITS,
  WEBHOOKS,
} from './built-in-webhooks.ts';
import type { CollectionDeclaration, PropertySchema, ResourcesDeclaration } from './declaration.ts';

/** Embedding hooks by collection (README: Embedding). */
export type Hooks = Readonly<Record<string, ResourceHook>>;

/** Who may do what when a declaration says nothing: reads need a token, writes are admin-only. */
const DEFAULT_ACCESS: Access = { list: 'user', read: 'user', create: 'admin', update: 'admin', delete: 'admin' };

/** What a declared `users` may not change about a built-in field. */
const FIXED_USER_KEYWORDS = ['type', 'enum', 'format', 'writeOnly', 'readOnly', 'x-unique', 'x-admin-only'] as const;

/** What the built-in collections' definitions have that no declaration says. */
type BuiltInTraits = Partial<Pick<ResourceDefinition, 'immutable' | 'unrecorded' | 'defaultSort'>> & {
  readonly hook: ResourceHook;
};
const BUILT_IN_TRAITS = new Map<string, BuiltInTraits>([
  [API_KEYS, API_KEY_TRAITS],
  [WEBHOOKS, WEBHOOK_TRAITS],
  [DELIVERIES, DELIVERY_TRAITS],
]);

/** The declared `users` merged over the built-in one. */
function usersDeclaration(declared: CollectionDeclaration | undefined): CollectionDeclaration {
  if (declared === undefined) return BUILT_IN_USERS;
  const properties: Record<string, PropertySchema> = { ...BUILT_IN_USER_PROPERTIES };
  for (const [name, schema] of Object.entries(declared.properties ?? {})) {
    const builtIn = Object.hasOwn(BUILT_IN_USER_PROPERTIES, name) ? BUILT_IN_USER_PROPERTIES[name] : undefined;
    if (builtIn === undefined) {
      properties[name] = schema;
      continue;
    }
    const merged: Record<string, unknown> = { ...builtIn, ...schema };
    for (const keyword of FIXED_USER_KEYWORDS) merged[keyword] = builtIn[keyword];
    properties[name] = merged as PropertySchema;
  }
  // check-declaration.ts has refused any operation made looser than the built-in one.
  const access = { ...BUILT_IN_USER_ACCESS, ...declared.access };
  const names: Record<string, { collection?: string; singular?: string; properties?: Record<string, string> }> = {};
  for (const source of [BUILT_IN_USERS.names ?? {}, declared.names ?? {}]) {
    for (const [language, given] of Object.entries(source)) {
      const before = names[language] ?? {};
      names[language] = { ...before, ...given, properties: { ...before.properties, ...given.properties } };
    }
  }
  const required = [...new Set([...(BUILT_IN_USERS.required ?? []), ...(declared.required ?? [])])];
  return { ...declared, singular: 'user', access, properties, required, names };
}

/** Collections in an order where every parent comes before its children, `users` first. */
function orderedCollections(declarations: Readonly<Record<string, CollectionDeclaration>>): string[] {
  const ordered: string[] = [];
  const visit = (name: string): void => {
    if (ordered.includes(name)) return;
    const parent = declarations[name]?.parent;
    if (parent !== undefined) visit(parent);
    ordered.push(name);
  };
  visit('users');
  for (const name of Object.keys(declarations)) visit(name);
  return ordered;
}

interface MutableDefinition extends Omit<
  ResourceDefinition,
  'children' | 'referencedBy' | 'referencing' | 'vocabularies'
> {
  readonly children: ResourceDefinition[];
  readonly referencedBy: { definition: ResourceDefinition; path: readonly string[] }[];
  readonly referencing: { field: string; definition: ResourceDefinition }[];
  readonly vocabularies: Map<Language, Vocabulary>;
}

/** Compiles a declaration that check-declaration.ts found no problem in. */
export function compileDeclaration(declaration: ResourcesDeclaration, hooks: Hooks = {}): ResourceTable {
  const declarations: Record<string, CollectionDeclaration> = {
    ...declaration.resources,
    users: usersDeclaration(declaration.resources['users']),
    [API_KEYS]: BUILT_IN_KEYS,
  };
  // Webhooks deliver the events of every collection before them, and are in the change feed themselves no more than
  // their deliveries.
  declarations[WEBHOOKS] = builtInWebhooks(orderedCollections(declarations));
  declarations[DELIVERIES] = BUILT_IN_DELIVERIES;
  const byCollection = new Map<string, MutableDefinition>();
  for (const collection of orderedCollections(declarations)) {
    const body = declarations[collection] as CollectionDeclaration;
    const parentDefinition = body.parent === undefined ? undefined : byCollection.get(body.parent);
    const parent =
      parentDefinition === undefined
        ? undefined
        : {
            definition: parentDefinition as ResourceDefinition,
            field: `${parentDefinition.singular}_id`,
            onDelete: body['on-delete'] ?? 'cascade',
          };
    const ownership = ownershipOf(collection, body, parentDefinition);
    const singleton = body['x-singleton'] === true;
    const idKind = body['x-id'] ?? 'integer';
    const idField = idKind === 'integer' ? ID_FIELD : { ...ID_FIELD, idKind };
    const fields: FieldRule[] = [singleton ? SINGLETON_ID_FIELD : idField];
    if (parent !== undefined)
      fields.push(
        parent.definition.idKind === 'integer'
          ? { name: parent.field, type: 'integer', access: 'server', minimum: 1 }
          : { name: parent.field, type: 'string', access: 'server' },
      );
    if (body.owned === true && ownership === 'owned')
      fields.push({ name: OWNER_FIELD_NAME, type: 'integer', access: 'server', minimum: 1 });
    const required = new Set(body.required ?? []);
    // The built-in collections have their own hooks (a key's expiry in the past refused), which set only what they say.
    const traits = BUILT_IN_TRAITS.get(collection);
    const hook = traits?.hook ?? hooks[collection];
    const setsFields = traits === undefined && hook !== undefined;
    for (const [name, schema] of Object.entries(body.properties ?? {})) {
      let rule = compileRule(name, schema, required.has(name), (other) => declarations[other]?.singular);
      // An API key's secret: made by the server, kept as its hash, by which the key is found.
      if (collection === API_KEYS && name === API_KEY_SECRET.field)
        rule = { ...rule, issued: 'api-key', storedAs: API_KEY_SECRET.storedAs };
      // A webhook's signing secret: made by the server, kept as it is, for it signs.
      if (collection === WEBHOOKS && name === WEBHOOK_SECRET.field)
        rule = { ...rule, issued: 'webhook-secret', storedAs: WEBHOOK_SECRET.storedAs };
      if (collection === 'users' && REQUIRED_OF_REQUESTS_ONLY.includes(name))
        rule = { ...rule, requiredOfRequestsOnly: true };
      // Set by nobody but a hook: without one, and without a default, some records lack it.
      const unset = rule.access === 'server' && rule.default === undefined && !setsFields;
      fields.push(unset ? { ...rule, optional: true } : rule);
    }
    if (collection === WEBHOOKS) fields.push(...WEBHOOK_HIDDEN_RULES);
    fields.push(CREATED_AT_FIELD, UPDATED_AT_FIELD);
    const access: Access = { ...DEFAULT_ACCESS, ...body.access };
    const definition: MutableDefinition = {
      collection,
      idKind,
      singular: body.singular,
      ...(parent === undefined ? {} : { parent }),
      children: [],
      referencedBy: [],
      referencing: [],
      ownership,
      access,
      fields,
      vocabularies: new Map(),
      ...(collection === 'users' ? { createdFields: ['id', 'name'] } : {}),
      ...traits,
      ...(singleton ? { singleton: true } : {}),
      ...(hook === undefined ? {} : { hook }),
      declared: collectionExtras(body),
    };
    byCollection.set(collection, definition);
    parentDefinition?.children.push(definition as ResourceDefinition);
  }
  for (const definition of byCollection.values()) {
    for (const rule of definition.fields) {
      // A reference, or an array of them (README: Your own resources, ids).
      const names = rule.references ?? rule.items?.references;
      const referenced = names === undefined ? undefined : byCollection.get(names);
      if (referenced === undefined) continue;
      referenced.referencedBy.push({ definition: definition as ResourceDefinition, path: [rule.name] });
      definition.referencing.push({ field: rule.name, definition: referenced as ResourceDefinition });
    }
  }
  const languages = [
    'en',
    ...new Set(
      Object.values(declarations)
        .flatMap((body) => Object.keys(body.names ?? {}))
        .filter((language) => language !== 'en'),
    ),
  ];
  for (const definition of byCollection.values()) {
    const body = declarations[definition.collection] as CollectionDeclaration;
    for (const language of languages)
      definition.vocabularies.set(language, vocabularyFor(definition, body, language, declarations));
  }
  const resources = [...byCollection.values()] as ResourceDefinition[];
  return { resources, languages, get: (collection) => byCollection.get(collection) as ResourceDefinition | undefined };
}

/** See Ownership in resources/definition.ts. */
function ownershipOf(
  collection: string,
  body: CollectionDeclaration,
  parent: ResourceDefinition | undefined,
): Ownership | undefined {
  if (collection === 'users') return 'self';
  if (parent !== undefined && (parent.ownership === 'self' || parent.ownership === 'root-user')) return 'root-user';
  if (body.owned === true) return 'owned';
  if (parent?.ownership !== undefined) return 'ancestor';
  return undefined;
}

/** The collection's own description and unknown `x-` members, kept for the OpenAPI document. */
function collectionExtras(body: CollectionDeclaration): JsonObject {
  const extras: Record<string, JsonValue> = {};
  for (const [member, value] of Object.entries(body)) {
    if (member === 'description' || member.startsWith('x-')) extras[member] = value as JsonValue;
  }
  return extras;
}

function vocabularyFor(
  definition: MutableDefinition,
  body: CollectionDeclaration,
  language: Language,
  declarations: Readonly<Record<string, CollectionDeclaration>>,
): Vocabulary {
  const names = language === 'en' ? undefined : body.names?.[language];
  const properties = new Map<string, string>(Object.entries(names?.properties ?? {}));
  const parent = definition.parent;
  if (parent !== undefined && language !== 'en') {
    const parentSingular =
      declarations[parent.definition.collection]?.names?.[language]?.singular ?? parent.definition.singular;
    properties.set(parent.field, `${parentSingular}_id`);
  }
  const known = new Set<string>(['id', 'created_at', 'updated_at']);
  const addNames = (rules: readonly FieldRule[]): void => {
    for (const rule of rules) {
      known.add(rule.name);
      if (rule.members !== undefined) addNames(rule.members);
      if (rule.items?.members !== undefined) addNames(rule.items.members);
    }
  };
  addNames(definition.fields);
  return buildVocabulary({
    language,
    collection: names?.collection ?? definition.collection,
    singular: names?.singular ?? definition.singular,
    properties,
    known,
  });
}
