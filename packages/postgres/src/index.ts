// plainrest-postgres: PostgreSQL storage for plainrest (docs/deploying.md): tables from the
// declared resources, brought to the declaration at start, and a Store that any number
// of plainrest processes share.

export type { ColumnPlan, IndexPlan, TablePlan } from './schema.ts';
export { schemaOf } from './schema.ts';
export type { MigrationResult } from './schema-migration.ts';
export type { SchemaProblem } from 'plainrest';
export { migrateSchema } from './schema-migration.ts';
export type { CoreKit } from './core-kit.ts';
export { PostgresStore } from './postgres-store.ts';
export type { OpenOptions, OpenResult } from './open.ts';
export { openPostgresStore } from './open.ts';
export type { CollectionCopy, FindResult, ReadResult, Unreachable, WriteResult } from './copy.ts';
export { findUserByEmail, readAllRecords, writeAllRecords } from './copy.ts';
