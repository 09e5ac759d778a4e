// plainrest's public API for embedding (README: Embedding). Embedding never reads the
// environment or the command line and prints nothing unless given a logger.

export { createApp, startServer, DRAIN_TIMEOUT_MS } from './server/server.ts';
export type { App, RunningServer } from './server/server.ts';
export { DEFAULTS } from './config/config.ts';
export type { Config } from './config/config.ts';
export type { JsonServerOptions, ServerOptions } from './config/server-options.ts';
export type { AccessEntry, Logger } from './logging/logger.ts';
export { StartupError } from './store/open-store.ts';
export { MemoryStore } from './store/memory-store.ts';
export type {
  Persistence,
  Change,
  Decision,
  EventFacts,
  StoredCollection,
  RecordReads,
  RequestPlan,
  RequestStore,
  Store,
} from './store/store.ts';
export type { CollectionState } from './store/collection-state.ts';
export type { Condition, Query, QueryResult, RangeFilter } from './store/query.ts';
export type { ChangeFeed, EventPage, EventWindow } from './feed/change-feed.ts';
export type { EventFilter, EventType, FeedEvent, Readable } from './feed/feed-event.ts';
export type { Retention } from './feed/event-log.ts';
export type { RecordReader } from './resources/definition.ts';
export type { SchemaProblem } from './store/open-database.ts';
export type { StoredRecord, JsonObject, JsonValue } from './records/json.ts';
export type { IdKind, RecordId } from './records/record-id.ts';
export type { ResourcesDeclaration, CollectionDeclaration, PropertySchema } from './declarations/declaration.ts';
export type { Hooks } from './declarations/compile-declaration.ts';
export { DeclarationError } from './declarations/load-declaration.ts';
export type {
  FieldRule,
  ResourceDefinition,
  ResourceHook,
  ResourceTable,
  WriteContext,
} from './resources/definition.ts';
export { HookConflict, validationError } from './errors/errors.ts';
