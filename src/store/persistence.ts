// The seam behind the memory store (README: Embedding): what makes its committed changes durable. The data
// directory's journal is one (journal-persistence.ts); an embedding program may give its own.

import type { Change } from './change.ts';

/** Where a commit sits in the journal's history: its first number and when it was made. */
export interface EntryPlace {
  readonly seq: number;
  readonly at: string;
}

/** Makes committed changes durable; absent for a memory-only store. */
export interface Persistence {
  readonly writable: boolean;
  persist(changes: readonly Change[], place: EntryPlace): Promise<void>;
  close(): Promise<void>;
}
