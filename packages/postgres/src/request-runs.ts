// How a request runs on the PostgreSQL store (docs/deploying.md): its code reads synchronously, so a read of rows not
// yet loaded throws NeedRows; they are loaded and the code runs again from the start. And a request whose caller was
// answered from memory is answered only once a read, its write or a last check has confirmed that caller.

/** Thrown by a view's read of rows it has not loaded: `fetch()` loads them. No Error: no stack trace is recorded. */
export class NeedRows {
  readonly fetch: () => Promise<void>;

  constructor(fetch: () => Promise<void>) {
    this.fetch = fetch;
  }
}

/** The caller answered from memory was deleted or changed role: nothing was written, and the request runs again. */
export class CallerChanged {}

/** `read()`'s value, at once when everything it read was loaded, else once it is (running `read` again). */
export function loaded<T>(read: () => T | Promise<T>): T | Promise<T> {
  try {
    return read();
  } catch (error) {
    if (!(error instanceof NeedRows)) throw error;
    return error.fetch().then(() => loaded(read));
  }
}

/** What confirmedAnswer needs of the request's view (postgres-view.ts). */
export interface CallerCheck {
  /** True when the caller answered from memory, if any, is still as it was; else it is forgotten. */
  confirmCaller(): Promise<boolean>;
}

/**
 * `answer()`, once the caller it was answered with is confirmed as it was: by its first read or its write, or by
 * `view.confirmCaller()` after it. An answer or a refusal given to a caller that has since changed is thrown away and
 * the request runs again, its caller read afresh, so a deleted or demoted user is refused or demoted as at any other
 * request.
 */
export async function confirmedAnswer<T>(view: CallerCheck, answer: () => T | Promise<T>): Promise<T> {
  let result: T;
  try {
    result = await answer();
  } catch (error) {
    if (error instanceof CallerChanged || !(await view.confirmCaller())) return answer();
    throw error;
  }
  return (await view.confirmCaller()) ? result : answer();
}
