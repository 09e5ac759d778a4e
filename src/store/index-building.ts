// The signal that a list index is still being built (README: Lists; docs/storage.md): a read that needs it stops with
// this, and MemoryStore.read runs it again once the index is ready, while other requests go on.

/**
 * Thrown by a read that needs an index still being built (a search's word index, a list's view sorted in slices): the
 * reading code runs again once `built` settles (MemoryStore.read).
 */
export class IndexBuilding {
  readonly built: Promise<void>;

  constructor(built: Promise<void>) {
    this.built = built;
  }
}
