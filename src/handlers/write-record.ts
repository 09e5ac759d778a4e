// Turning a validated body into the record to store, for POST, PUT and PATCH
// (README: Records, Methods). PUT replaces the client-writable fields (absent optional ones are
// removed; role, status and the password are left as they are); PATCH is a JSON Merge
// Patch (RFC 7396). The decision is synchronous, so no other request can interleave
// between the checks (unique email, order state) and the commit. Password hashing is
// the one slow step: it runs outside, and the decision is then taken again on fresh state.

import { HttpError } from '../http/errors.js';
import type { Fields, JsonObject, StoredRecord } from '../json.js';
import { jsonEqual } from '../json.js';
import { applyMergePatch } from '../merge-patch.js';
import { hashPassword, verifyPassword } from '../passwords.js';
import type { FieldRule, ResourceDefinition } from '../resources/definition.js';
import { childrenOf } from '../resources/index.js';
import type { Change, Store } from '../store/store.js';
import type { WriteMode } from '../validation.js';
import { translatePath, validateBody } from '../validation.js';
import type { Language } from '../vocabulary.js';
import { translate } from '../vocabulary.js';

export interface WritePlan {
  readonly definition: ResourceDefinition;
  readonly language: Language;
  readonly mode: WriteMode;
  readonly body: JsonObject;
  readonly store: Store;
  /** The stored record for PUT and PATCH. */
  readonly current?: StoredRecord;
  /** The parent's id for a nested resource (an order's user). */
  readonly parentId?: number;
}

/** Rule name → the value to keep in its `storedAs` field (a password hash). */
export type Secrets = ReadonlyMap<string, { readonly plain: string; readonly stored: string }>;

export interface WriteDecision {
  readonly plan: WritePlan;
  readonly next: Fields;
}

/**
 * Decides the next fields of a record. `load` gathers the current state and runs the
 * checks that depend on it (404, 412). When the body carries a password, the answer is
 * instead a promise of its hash: call again with it, and the decision is taken anew on
 * the state of that moment. Either way the decision that is committed is taken in the
 * same turn as the commit, so no other write can come between them.
 */
export function decideWrite(load: () => WritePlan): WriteDecision | Promise<Secrets>;
export function decideWrite(load: () => WritePlan, hashed: Secrets): WriteDecision;
export function decideWrite(load: () => WritePlan, hashed?: Secrets): WriteDecision | Promise<Secrets> {
  const plan = load();
  const next = planWrite(plan, hashed);
  if (hashed !== undefined) return { plan, next };
  const secretRules = plan.definition.fields.filter((rule) => rule.storedAs !== undefined && typeof next[rule.name] === 'string');
  if (secretRules.length === 0) return { plan, next };
  return hashSecrets(secretRules, next, plan.current);
}

function planWrite(plan: WritePlan, secrets?: Secrets): Fields {
  const { definition, language, mode, current } = plan;
  const input = validateBody(definition.fields, plan.body, language, mode, current);
  let next: Fields;
  if (mode === 'create' || current === undefined) next = withDefaults(definition, input);
  else if (mode === 'replace') next = replaceFields(definition, current, input);
  else next = applyMergePatch(current, input) as Fields;
  if (definition.parent !== undefined && plan.parentId !== undefined) next[definition.parent.field] = plan.parentId;
  if (secrets !== undefined) next = withSecrets(definition, next, secrets);
  if (definition.completeWrite !== undefined) next = completeInVocabulary(definition, next, plan);
  requireUnique(definition, next, plan);
  return next;
}

function withDefaults(definition: ResourceDefinition, input: Fields): Fields {
  const next: Fields = { ...input };
  for (const rule of definition.fields) {
    if (rule.default !== undefined && next[rule.name] === undefined) next[rule.name] = rule.default;
  }
  return next;
}

/** PUT: server fields, and fields only some callers may set, come from the current record when absent. */
function replaceFields(definition: ResourceDefinition, current: StoredRecord, input: Fields): Fields {
  const next: Fields = {};
  for (const rule of definition.fields) {
    const given = input[rule.name];
    if (given !== undefined && rule.access !== 'server') {
      next[rule.name] = given;
      continue;
    }
    if (rule.access === 'client') continue;
    const kept = rule.storedAs ?? rule.name;
    const value = current[kept];
    if (value !== undefined) next[kept] = value;
  }
  return next;
}

/** Replaces each plaintext secret by what is to be stored for it. */
function withSecrets(definition: ResourceDefinition, next: Fields, secrets: Secrets): Fields {
  const result: Fields = { ...next };
  for (const rule of definition.fields) {
    const secret = secrets.get(rule.name);
    if (secret === undefined || rule.storedAs === undefined || result[rule.name] !== secret.plain) continue;
    delete result[rule.name];
    result[rule.storedAs] = secret.stored;
  }
  return result;
}

/** A new hash, or the current one when the password is unchanged (so a repeated PUT changes nothing). */
async function hashSecrets(rules: readonly FieldRule[], next: Fields, current: StoredRecord | undefined): Promise<Secrets> {
  const secrets = new Map<string, { plain: string; stored: string }>();
  for (const rule of rules) {
    const plain = next[rule.name] as string;
    const currentHash = rule.storedAs === undefined ? undefined : current?.[rule.storedAs];
    const unchanged = typeof currentHash === 'string' && (await verifyPassword(plain, currentHash));
    secrets.set(rule.name, { plain, stored: unchanged ? currentHash : await hashPassword(plain) });
  }
  return secrets;
}

/** Runs the resource's own rules and names any field in the client's vocabulary. */
function completeInVocabulary(definition: ResourceDefinition, next: Fields, plan: WritePlan): Fields {
  try {
    return definition.completeWrite!({ next, current: plan.current, store: plan.store });
  } catch (error) {
    if (!(error instanceof HttpError) || error.errors === undefined || plan.language === 'en') throw error;
    const errors = error.errors.map((entry) => ({ ...entry, field: translatePath(entry.field, plan.language) }));
    throw new HttpError(error.code, error.message, { errors });
  }
}

/** 409 for a value another record already has, ignoring case (README: Records, for emails). */
function requireUnique(definition: ResourceDefinition, next: Fields, plan: WritePlan): void {
  for (const rule of definition.fields) {
    const value = next[rule.name];
    if (rule.uniqueIgnoringCase !== true || typeof value !== 'string') continue;
    const holder = plan.store.findIgnoringCase(definition.collection, rule.name, value);
    if (holder !== undefined && holder.id !== plan.current?.id) {
      const field = translate(rule.name, plan.language);
      throw new HttpError('duplicate_value', `another ${definition.singular} already has this ${field}`);
    }
  }
}

/** True when a PUT or PATCH would change nothing, so `updated_at` is not bumped. */
export function isUnchanged(next: Fields, current: StoredRecord): boolean {
  return jsonEqual(next, current);
}

/** The frozen record to store, with its fields in declaration order (readable snapshots). */
export function finishRecord(
  definition: ResourceDefinition,
  next: Fields,
  id: number,
  createdAt: string,
  updatedAt: string,
): StoredRecord {
  const record: Fields = { id };
  for (const rule of definition.fields) {
    const name = rule.storedAs ?? rule.name;
    const value = next[name];
    if (value !== undefined && rule.type !== 'id' && rule.type !== 'timestamp') record[name] = value;
  }
  record['created_at'] = createdAt;
  record['updated_at'] = updatedAt;
  return Object.freeze(record) as StoredRecord;
}

/** Deleting a record deletes the records that belong to it, in the same commit. */
export function deletionWithDependents(store: Store, definition: ResourceDefinition, id: number): Change[] {
  const changes: Change[] = [{ kind: 'delete', collection: definition.collection, id }];
  for (const child of childrenOf(definition.collection)) {
    const field = child.parent?.field as string;
    const query = { filters: [{ field, value: id }], sort: [], offset: 0, limit: Number.POSITIVE_INFINITY };
    for (const record of store.query(child.collection, query).records) {
      changes.push(...deletionWithDependents(store, child, record.id));
    }
  }
  return changes;
}
