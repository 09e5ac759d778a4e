// The records an import stores (README: Moving in from json-server): each record's properties in snake_case, its
// references rewritten to the new ids, its timestamps kept, then checked against the declaration as a POST of it
// would be (422s become problem lines) and finished as the store keeps records.

import { DEFAULTS } from '../config/config.ts';
import { HttpError } from '../errors/errors.ts';
import { recordToStore, withDefaults } from '../handlers/write-record.ts';
import type { Fields, JsonValue, StoredRecord } from '../records/json.ts';
import type { ResourceTable } from '../resources/definition.ts';
import { vocabularyOf } from '../resources/definition.ts';
import { validateBody } from '../resources/validation.ts';
import type { Source } from './file-collections.ts';
import { recordName } from './file-collections.ts';
import { isLeftOut } from './import-declaration.ts';
import type { Findings } from './infer-schema.ts';
import { converted, preview } from './infer-schema.ts';
import { snakeCase } from './names.ts';
import type { RecordId } from '../records/record-id.ts';
import type { Property } from './properties.ts';
import { timestampOf } from './timestamps.ts';

/** The records of a collection as stored, each checked as a POST of it would be. */
export function storedRecords(
  source: Source,
  found: readonly Property[],
  table: ResourceTable,
  now: string,
  findings: Findings,
): StoredRecord[] {
  const definition = table.get(source.name);
  if (definition === undefined) return [];
  const vocabulary = vocabularyOf(definition, 'en');
  const byName = new Map(found.map((property) => [property.name, property]));
  const unique = definition.fields.filter((rule) => rule.unique !== undefined);
  const taken = new Map<string, Set<string>>(unique.map((rule) => [rule.name, new Set()]));
  const records: StoredRecord[] = [];
  source.records.forEach((raw, index) => {
    const body: Record<string, JsonValue> = {};
    const times: Record<string, string> = {};
    for (const [key, value] of Object.entries(raw)) {
      const name = snakeCase(key);
      const property = byName.get(name);
      if (property === undefined || isLeftOut(source, name)) continue;
      if (value === null) {
        // Kept where the property may hold null (properties.ts); left out elsewhere (a timestamp, an enum).
        if (Array.isArray(property.schema.type)) body[name] = null;
        continue;
      }
      if (property.timestamp === true) times[name] = timestampOf(value) as string;
      else if (property.references !== undefined)
        body[name] = property.references.ids.newIds.get(String(value)) as RecordId;
      else if (property.referencesEach !== undefined) {
        const ids = property.referencesEach.ids.newIds;
        body[name] = (value as JsonValue[]).map((item) => ids.get(String(item)) as RecordId);
      } else if (definition.fields.some((rule) => rule.name === name)) body[name] = converted(value);
    }
    let validated: Fields;
    try {
      validated = validateBody(definition.fields, body, vocabulary, 'create');
    } catch (error) {
      if (!(error instanceof HttpError)) throw error;
      for (const entry of error.errors ?? [])
        findings.problems.push(`${recordName(source, index)}, ${entry.field}: ${entry.message}`);
      return;
    }
    // As a create would: what the record lacks and the declaration gives (a user's role).
    const fields = withDefaults(definition, validated);
    for (const rule of unique) {
      const value = fields[rule.name];
      if (typeof value !== 'string' && typeof value !== 'number') continue;
      const key = rule.unique === 'ignore-case' ? String(value).toLowerCase() : String(value);
      if (taken.get(rule.name)?.has(key) === true)
        findings.problems.push(`${recordName(source, index)}, ${rule.name}: ${preview(value)} is another record's too`);
      taken.get(rule.name)?.add(key);
    }
    if (source.name === 'users' && String(fields['email']).toLowerCase() === DEFAULTS.adminEmail)
      findings.notes.push(
        `${recordName(source, index)}: ${DEFAULTS.adminEmail} is the address the administrator is made with by ` +
          'default; serve with ADMIN_EMAIL set to another, or that user (with no password) stands in its place',
      );
    const createdAt = times['created_at'] ?? times['updated_at'] ?? now;
    const id = source.ids.ids[index] as RecordId;
    records.push(recordToStore(definition, fields, id, createdAt, times['updated_at'] ?? createdAt));
  });
  return records;
}

/** `posts: 2 record(s) got new ids: "1f3a" → 8, …`, and whether references to them followed. */
export function noteRenumbered(source: Source, referenced: boolean, findings: Findings): void {
  // An id the file gave is quoted; `(record 3)` stands for a record that had none.
  const renumbered = [...source.ids.renumbered].map(
    ([raw, id]) => `${/^\(record \d+\)$/.test(raw) ? raw : JSON.stringify(raw)} → ${id}`,
  );
  if (renumbered.length === 0) return;
  findings.notes.push(
    `${source.key}: ${renumbered.length} record(s) got new ids: ${renumbered.slice(0, 5).join(', ')}` +
      `${renumbered.length > 5 ? ', …' : ''} ` +
      (referenced ? '(references to them were rewritten)' : '(no property of the file refers to them)'),
  );
}
