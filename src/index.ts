// plainrest's public API for embedding (README: Embedding). Embedding never reads the
// environment or the command line and prints nothing unless given a logger.

export { createApp } from './app.js';
export type { App } from './app.js';
export { startServer, DRAIN_TIMEOUT_MS } from './server.js';
export type { RunningServer } from './server.js';
export { DEFAULTS } from './config.js';
export type { Config, Logger, ServerOptions } from './config.js';
export type { AccessEntry } from './http/access-log.js';
export { StartupError } from './store/open-store.js';
export { MemoryStore } from './store/memory-store.js';
export type { Persistence } from './store/memory-store.js';
export type { CollectionState } from './store/collection-state.js';
export type { Change, Decision, EventFacts, Query, QueryResult, RangeFilter, Store, StoredCollection } from './store/store.js';
export type { ChangeFeed, EventPage, EventWindow } from './events/change-feed.js';
export type { EventFilter, EventType, FeedEvent, Readable } from './events/feed-event.js';
export type { Retention } from './events/event-log.js';
export type { RecordLookup } from './events/describe-changes.js';
export { NeedData } from './store/store.js';
export type { StoredRecord, JsonObject, JsonValue } from './json.js';
export type { ResourcesDeclaration, CollectionDeclaration, PropertySchema } from './declarations/declaration.js';
export type { Hooks, ResourceTable } from './declarations/compile-declaration.js';
export { DeclarationError } from './declarations/load-declaration.js';
export type { FieldRule, ResourceDefinition, ResourceHook, WriteContext } from './resources/definition.js';
export { HookConflict, validationError } from './http/errors.js';
