// plainrest-postgres: PostgreSQL storage for plainrest (CONTRACT §12): tables from the
// declared resources, brought to the declaration at start, and a Store that any number
// of plainrest processes share.

export type { ColumnPlan, IndexPlan, TablePlan } from './schema.js';
export { schemaOf } from './schema.js';
export type { MigrationResult, SchemaProblem } from './schema-migration.js';
export { migrateSchema } from './schema-migration.js';
export type { CoreKit } from './postgres-store.js';
export { PostgresStore } from './postgres-store.js';
export type { OpenOptions, OpenResult } from './open.js';
export { openPostgresStore } from './open.js';
export type { CollectionCopy, FindResult, ReadResult, Unreachable, WriteResult } from './copy.js';
export { findUserByEmail, readAllRecords, writeAllRecords } from './copy.js';
