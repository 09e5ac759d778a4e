// Statements sent by name (PostgreSQL's extended query protocol): node-postgres parses a named statement once per
// connection and PostgreSQL keeps its plan, so a request's statement is not parsed and planned anew each time (a
// create with its events is a statement of several parts whose planning costs more than running it).

import type pg from 'pg';

/**
 * Texts named, at most: the first met. Lists write their limit and offset into the text, so texts are many; later
 * ones go unnamed.
 */
const MAX_NAMED = 500;
const names = new Map<string, string>();

/** The statement as node-postgres sends it: named when its text has a name or may get one. */
export function named(text: string, values: readonly unknown[]): pg.QueryConfig {
  let name = names.get(text);
  if (name === undefined && names.size < MAX_NAMED) {
    name = `plainrest_${names.size + 1}`;
    names.set(text, name);
  }
  return name === undefined ? { text, values: values as unknown[] } : { name, text, values: values as unknown[] };
}
