// plainrest-postgres: PostgreSQL storage for plainrest (CONTRACT §12). This first part
// turns a declaration into tables and brings a database to it at start; the store that
// serves requests from those tables builds on it.

export type { ColumnPlan, IndexPlan, TablePlan } from './schema.js';
export { schemaOf } from './schema.js';
export type { MigrationResult, SchemaProblem } from './schema-migration.js';
export { migrateSchema } from './schema-migration.js';
