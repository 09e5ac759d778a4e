// Turning a request's body into the record to store, for POST, PUT and PATCH (README: Records, Methods, Your own
// resources): validated (validation.ts, 422); PUT replaces the client-writable fields, PATCH is a JSON Merge Patch (RFC
// 7396). Then, in this order: references must name records (422), states follow `x-transitions` (409), the hook
// completes the record, and `x-unique` values must be free (409).

import type { FieldError } from '../errors/errors.ts';
import { HttpError, validationError } from '../errors/errors.ts';
import type { Fields, JsonObject, JsonValue, StoredRecord } from '../records/json.ts';
import { isJsonObject, jsonEqual } from '../records/json.ts';
import { withArticle } from '../resources/names.ts';
import type { FieldRule, ResourceDefinition, Vocabulary } from '../resources/definition.ts';
import { CREATED_AT_FIELD, OWNER_FIELD_NAME, UPDATED_AT_FIELD } from '../resources/definition.ts';
import type { RecordReads } from '../store/store.ts';
import type { WriteMode } from '../resources/validation.ts';
import { validateBody } from '../resources/validation.ts';
import { translatePath } from '../resources/vocabulary.ts';
import { hashPasswords, withSecrets, type Secrets } from './write-secrets.ts';
import type { RecordId } from '../records/record-id.ts';
import type { WritePreparation } from './context.ts';

/**
 * What a write's fields are decided from: the body, what it writes to, and the record as it is now. Handlers build it
 * in `requireWriteInput`, which reads the current state and runs the checks that depend on it (404, 403, 412), inside
 * the store's write.
 */
export interface WriteInput {
  readonly definition: ResourceDefinition;
  readonly vocabulary: Vocabulary;
  readonly mode: WriteMode;
  readonly body: JsonObject;
  readonly store: RecordReads;
  /** The stored record for PUT and PATCH. */
  readonly current?: StoredRecord;
  /**
   * PUT and PATCH: the record as the request first read it, before its body arrived. A
   * state (`x-transitions`) that another request changed since then is a 409 for a
   * request asking to change it too: of two racing cancels, one gets 200 and one 409.
   */
  readonly firstRead?: StoredRecord;
  /** The parent's id for a nested resource (an order's user). */
  readonly parentId?: RecordId;
  /** Who creates the record: the owner of a record of an `owned` collection. */
  readonly creatorId?: number;
}

/**
 * The record's next fields, to store: `checkedFields` (the body checked and applied, each secret replaced by what
 * `secrets` holds to store for it), plus the guard that every password was hashed. What `secrets` holds is a
 * password's hash (`hashedSecrets`, the one slow step, is awaited before the write) or the SHA-256 of an API key's
 * secret (write-secrets.ts: issuedSecrets). Called inside the store's write (store.ts: RequestStore.write), so no other
 * write can come between it and its commit.
 */
export function fieldsToStore(input: WriteInput, secrets?: Secrets): Fields {
  const next = checkedFields(input, secrets);
  if (
    secrets === undefined &&
    input.definition.fields.some((rule) => rule.storedAs !== undefined && typeof next[rule.name] === 'string')
  ) {
    throw new Error('a write-only value must be hashed first (hashedSecrets)');
  }
  return next;
}

/**
 * The hashes of the secrets (passwords) the write would store, at scrypt cost `cost`, after checking the body
 * as fieldsToStore does (so a 422 comes before any hashing); undefined when there are none.
 */
export function hashedSecrets(input: WriteInput, cost: number): Promise<Secrets> | undefined {
  const next = checkedFields(input, undefined);
  const secretRules = input.definition.fields.filter(
    (rule) => rule.storedAs !== undefined && typeof next[rule.name] === 'string',
  );
  return secretRules.length === 0 ? undefined : hashPasswords(secretRules, next, input.current, cost);
}

/**
 * What the collection's preparation adds to the write (handlers/context.ts: WritePreparation), after checking the body
 * as fieldsToStore does (so a 422 comes before any lookup); undefined without one.
 */
export function preparedFields(
  input: WriteInput,
  preparation: WritePreparation | undefined,
): Promise<Fields> | undefined {
  return preparation?.prepare(checkedFields(input, undefined), input.current);
}

/**
 * The body validated, then applied: a new record's defaults, a PUT's replacement or a PATCH's merge, the parent and
 * owner ids, the `secrets` given; then references (422), transitions (409), the hook and uniqueness (409) checked.
 */
function checkedFields(input: WriteInput, secrets?: Secrets): Fields {
  const { definition, vocabulary, mode, current } = input;
  const checked = validateBody(definition.fields, input.body, vocabulary, mode, current, definition.hook !== undefined);
  let next: Fields;
  if (mode === 'create' || current === undefined) next = withDefaults(definition, checked);
  else if (mode === 'replace') next = replaceFields(definition, current, checked);
  else next = patched(current, checked);
  if (definition.parent !== undefined && input.parentId !== undefined) next[definition.parent.field] = input.parentId;
  if (current === undefined && definition.ownership === 'owned' && input.creatorId !== undefined)
    next[OWNER_FIELD_NAME] = input.creatorId;
  if (secrets !== undefined) next = withSecrets(definition, next, secrets);
  requireReferencedRecords(definition.fields, next, input);
  if (current !== undefined)
    requireTransitions(definition, next, current, vocabulary, {
      asked: checked,
      firstRead: input.firstRead ?? current,
    });
  if (definition.hook !== undefined) next = completedByHook(definition, next, input);
  requireUnique(definition, next, input);
  return next;
}

/** 422 for an `x-references` value, at any depth, that names no record of its collection. */
function requireReferencedRecords(rules: readonly FieldRule[], next: Fields, input: WriteInput): void {
  const errors: FieldError[] = [];
  const visit = (rule: FieldRule, value: JsonValue | undefined, path: string): void => {
    if (value === undefined || value === null) return;
    if (
      rule.references !== undefined &&
      (typeof value === 'number' || typeof value === 'string') &&
      input.store.get(rule.references, value) === undefined
    ) {
      const singular = rule.referencedSingular ?? rule.references;
      errors.push({
        field: translatePath(path, input.vocabulary),
        code: `unknown_${singular}`,
        message: `no ${singular} has id ${JSON.stringify(value)}`,
      });
    }
    if (rule.members !== undefined && isJsonObject(value))
      for (const member of rule.members) visit(member, value[member.name], `${path}.${member.name}`);
    if (rule.items !== undefined && Array.isArray(value))
      (value as readonly JsonValue[]).forEach((item, index) =>
        visit(rule.items as FieldRule, item, `${path}[${index}]`),
      );
  };
  for (const rule of rules)
    if (rule.references !== undefined || rule.members !== undefined || rule.items !== undefined)
      visit(rule, next[rule.name], rule.name);
  if (errors.length > 0) throw validationError(errors);
}

/**
 * 409 for a state change `x-transitions` does not allow; writing the current state again
 * is no change, unless another request changed the state since this one read it (`firstRead`)
 * and this one's body asks for a change of its own: it was decided on a state that is gone.
 */
function requireTransitions(
  definition: ResourceDefinition,
  next: Fields,
  current: StoredRecord,
  vocabulary: Vocabulary,
  { asked, firstRead }: { readonly asked: Fields; readonly firstRead: StoredRecord },
): void {
  for (const rule of definition.fields) {
    if (rule.transitions === undefined) continue;
    const from = current[rule.name];
    const to = next[rule.name];
    const before = firstRead[rule.name];
    if (before !== from && asked[rule.name] !== undefined && to !== before) {
      throw new HttpError(
        'invalid_transition',
        `${withArticle(vocabulary.singular)} went from ${String(before)} to ${String(from)} ` +
          `(${vocabulary.name(rule.name)}) through another request while this one was handled; ` +
          `read it again before changing it`,
      );
    }
    if (from === to || typeof from !== 'string' || typeof to !== 'string') continue;
    const allowed = rule.transitions[from] ?? [];
    if (allowed.includes(to)) continue;
    const onward = allowed.length === 0 ? `${from} is final` : `from ${from} it may go to ${allowed.join(' or ')}`;
    throw new HttpError(
      'invalid_transition',
      `${withArticle(vocabulary.singular)} cannot go from ${from} to ${to} (${vocabulary.name(rule.name)}); ${onward}`,
    );
  }
}

/**
 * PATCH: the checked body's fields over the current record's, `null` removing one (RFC 7396 §2). An object member
 * arrives merged with the stored one already: it was checked so (resources/validation.ts).
 */
function patched(current: StoredRecord, checked: Fields): Fields {
  const next: Fields = { ...current };
  for (const [name, value] of Object.entries(checked)) {
    if (value === null) delete next[name];
    else next[name] = value;
  }
  return next;
}

/** A new record's fields: the body's, and each declared default it lacks (a user's role). */
export function withDefaults(definition: ResourceDefinition, checked: Fields): Fields {
  const next: Fields = { ...checked };
  for (const rule of definition.fields) {
    if (rule.default !== undefined && next[rule.name] === undefined) next[rule.name] = rule.default;
  }
  return next;
}

/**
 * PUT: absent client-writable fields are removed; server fields, fields only some callers may set (admin-only,
 * write-only) and fields with a default (a record always has them: README, Methods) stay as they are when absent.
 */
function replaceFields(definition: ResourceDefinition, current: StoredRecord, checked: Fields): Fields {
  const next: Fields = {};
  for (const rule of definition.fields) {
    const given = checked[rule.name];
    if (given !== undefined && rule.access !== 'server') {
      next[rule.name] = given;
      continue;
    }
    if (rule.access === 'client' && rule.default === undefined) continue;
    const kept = rule.storedAs ?? rule.name;
    const value = current[kept];
    if (value !== undefined) next[kept] = value;
  }
  return next;
}

/**
 * The fields as the resource's hook completes them (an order's prices and total), or its 422 (with each field named in
 * the client's vocabulary) or 409.
 */
function completedByHook(definition: ResourceDefinition, next: Fields, input: WriteInput): Fields {
  const hook = definition.hook as NonNullable<ResourceDefinition['hook']>;
  try {
    return hook({ next, current: input.current, store: input.store });
  } catch (error) {
    if (!(error instanceof HttpError) || error.errors === undefined || input.vocabulary.language === 'en') throw error;
    if (error.status !== 422) throw error;
    throw validationError(
      error.errors.map((entry) => ({ ...entry, field: translatePath(entry.field, input.vocabulary) })),
    );
  }
}

/** 409 for an `x-unique` value another record of the collection already has (README: Records, for emails). */
function requireUnique(definition: ResourceDefinition, next: Fields, input: WriteInput): void {
  for (const rule of definition.fields) {
    if (rule.unique === undefined) continue;
    const value = next[rule.name];
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') continue;
    const holder =
      rule.unique === 'ignore-case' && typeof value === 'string'
        ? input.store.findIgnoringCase(definition.collection, rule.name, value)
        : input.store
            .query(definition.collection, { filters: [{ field: rule.name, value }], sort: [], offset: 0, limit: 2 })
            .records.find((record) => record.id !== input.current?.id);
    if (holder !== undefined && holder.id !== input.current?.id) {
      const field = input.vocabulary.name(rule.name);
      throw new HttpError('duplicate_value', `another ${input.vocabulary.singular} already has this ${field}`);
    }
  }
}

/** True when a PUT or PATCH would change nothing, so `updated_at` is not bumped. */
export function isUnchanged(definition: ResourceDefinition, next: Fields, current: StoredRecord): boolean {
  if (jsonEqual(next, current)) return true;
  // A property that may hold null reads null when absent: null and absent are the same value there (a database keeps
  // one NULL for both).
  const nullable = definition.fields.filter((rule) => rule.nullable === true);
  return nullable.length > 0 && jsonEqual(withoutNulls(next, nullable), withoutNulls(current, nullable));
}

function withoutNulls(fields: Fields, nullable: readonly FieldRule[]): Fields {
  const kept: Fields = { ...fields };
  for (const rule of nullable) if (kept[rule.name] === null) delete kept[rule.name];
  return kept;
}

/**
 * The frozen record to store: `id` first, `next`'s fields in declaration order (readable snapshots), the two timestamps
 * last.
 */
export function recordToStore(
  definition: ResourceDefinition,
  next: Fields,
  id: RecordId,
  createdAt: string,
  updatedAt: string,
): StoredRecord {
  const record: Fields = { id };
  for (const rule of definition.fields) {
    const name = rule.storedAs ?? rule.name;
    const value = next[name];
    if (value !== undefined && rule.type !== 'id' && rule.type !== 'timestamp') record[name] = value;
  }
  record[CREATED_AT_FIELD.name] = createdAt;
  record[UPDATED_AT_FIELD.name] = updatedAt;
  return Object.freeze(record) as StoredRecord;
}
