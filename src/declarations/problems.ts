// What the checks of a declaration share: the parsed JSON they walk, not yet known to be
// well formed, and how they report what is wrong: one problem per place, named by a JSON
// pointer into the file (RFC 6901).

/** One thing wrong with a declaration: where (a JSON pointer) and what. */
export interface DeclarationProblem {
  readonly pointer: string;
  readonly message: string;
}

/** Records one problem. */
export type Report = (pointer: string, message: string) => void;

/** The pointer to `member` inside `pointer`: `~` and `/` in a member name are escaped (RFC 6901 §3). */
export function child(pointer: string, member: string | number): string {
  return `${pointer}/${String(member).replaceAll('~', '~0').replaceAll('/', '~1')}`;
}

/** A declaration's JSON as parsed, before any check. */
export type Json = unknown;
export type JsonObject = Record<string, Json>;
