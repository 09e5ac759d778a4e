// A json-server data file as a plainrest declaration and its records (README: Moving in from json-server): its lists
// (file-collections.ts), each one's properties (properties.ts), the declaration (import-declaration.ts), then every
// record checked against it (stored-records.ts). The plan holds either everything to load, or the problems that stop
// the import.

import type { CollectionDeclaration, ResourcesDeclaration } from '../declarations/declaration.ts';
import { compileObject, DeclarationError } from '../declarations/load-declaration.ts';
import type { StoredRecord } from '../records/json.ts';
import type { RecordId } from '../records/record-id.ts';
import type { ResourceTable } from '../resources/definition.ts';
import { collectionsOf } from './file-collections.ts';
import type { ImportAccess } from './import-declaration.ts';
import { collectionDeclaration } from './import-declaration.ts';
import type { Findings } from './infer-schema.ts';
import type { Property } from './properties.ts';
import { propertiesOf } from './properties.ts';
import { noteRenumbered, storedRecords } from './stored-records.ts';

/** Problem lines shown before "and N more". */
const MOST_PROBLEMS = 50;

/** What an import would load, or why it cannot; `notes` say what it decided either way. */
export type ImportPlan =
  | {
      readonly ok: true;
      readonly declaration: ResourcesDeclaration;
      /** Compiled from `declaration`. */
      readonly table: ResourceTable;
      /** The records to store, by collection, and each collection's next id. */
      readonly collections: ReadonlyMap<string, { readonly records: readonly StoredRecord[]; readonly nextId: number }>;
      /** By collection (as the file names it): each renumbered id as the file had it (`3f2a`) → its new id. */
      readonly renumbered: ReadonlyMap<string, ReadonlyMap<string, RecordId>>;
      readonly notes: readonly string[];
    }
  | { readonly ok: false; readonly problems: readonly string[]; readonly notes: readonly string[] };

/** Plans the import of `data` (a parsed db.json) with `access`; `now` is the time records without timestamps get. */
export function planImport(data: unknown, access: ImportAccess, now: string): ImportPlan {
  const findings: Findings = { notes: [], problems: [] };
  const sources = collectionsOf(data, findings);
  if (sources.length === 0 && findings.problems.length === 0)
    findings.problems.push('the file holds no list of records ({"posts": [...]}): there is nothing to import');
  const declared: Record<string, CollectionDeclaration> = {};
  const properties = new Map<string, readonly Property[]>();
  for (const source of sources) {
    const found = propertiesOf(source, sources, findings);
    properties.set(source.name, found);
    declared[source.name] = collectionDeclaration(source, found, access, findings);
  }
  const declaration: ResourcesDeclaration = { resources: declared };
  const stopped = (problems: readonly string[]): ImportPlan => ({
    ok: false,
    problems: shortened(problems),
    notes: findings.notes,
  });
  // Problems found so far do not stop the records' own checks: every problem of the file is told in one pass (what
  // could not be inferred is left out of the declaration, so its records are checked without it).
  let table: ResourceTable;
  try {
    table = compileObject(declaration);
  } catch (error) {
    if (!(error instanceof DeclarationError)) throw error;
    if (findings.problems.length > 0) return stopped(findings.problems);
    return stopped(error.lines.map((line) => `the declaration made from the file: ${line}`));
  }
  const referenced = new Set(
    [...properties.values()].flatMap((found) =>
      found.flatMap((property) => (property.references ?? property.referencesEach)?.name ?? []),
    ),
  );
  const collections = new Map<string, { records: StoredRecord[]; nextId: number }>();
  for (const source of sources)
    collections.set(source.name, {
      records: storedRecords(source, properties.get(source.name) ?? [], table, now, findings),
      nextId: source.ids.nextId,
    });
  for (const source of sources) noteRenumbered(source, referenced.has(source.name), findings);
  if (findings.problems.length > 0) return stopped(findings.problems);
  const renumbered = new Map(sources.map((source) => [source.key, source.ids.renumbered]));
  return { ok: true, declaration, table, collections, renumbered, notes: findings.notes };
}

/** At most MOST_PROBLEMS lines, then how many more there were. */
function shortened(problems: readonly string[]): string[] {
  if (problems.length <= MOST_PROBLEMS) return [...problems];
  return [...problems.slice(0, MOST_PROBLEMS), `and ${problems.length - MOST_PROBLEMS} more problems like these`];
}
