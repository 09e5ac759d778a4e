// json-server's `--routes` (docs/json-server.md: Serving json-server's dialect): rewrite rules such as
// `{ "/api/*": "/$1", "/blog/:id": "/posts/:id" }`, tried in order on the URL as sent, query included, each on what
// the ones before it made, as express-urlrewrite 1.4 with path-to-regexp 1.x runs them: `*` takes anything, `:name`
// one segment, letters of either case; `$1` and `:name` in the target take what they matched.

/** A request's target after the rules: its path and query. */
export interface Rewritten {
  readonly path: string;
  readonly queryString: string;
}

interface Rule {
  readonly pattern: RegExp;
  /** The name of each capture in order (a number for `*`). */
  readonly names: readonly string[];
  readonly target: string;
}

export class Rewrites {
  readonly #rules: readonly Rule[];

  constructor(routes: Readonly<Record<string, string>>) {
    this.#rules = Object.entries(routes).map(([source, target]) => ({ ...compiled(source), target }));
  }

  /** `path?queryString` after every rule that matches it. */
  apply(path: string, queryString: string): Rewritten {
    if (this.#rules.length === 0) return { path, queryString };
    let url = queryString === '' ? path : `${path}?${queryString}`;
    for (const rule of this.#rules) {
      const match = rule.pattern.exec(url);
      if (match === null) continue;
      url = rule.target.replace(/\$(\d+)|(?::(\w+))/g, (_whole, number?: string, name?: string) => {
        const index = name === undefined ? Number(number) : rule.names.indexOf(name) + 1;
        return match[index] ?? '';
      });
    }
    const question = url.indexOf('?');
    return question === -1
      ? { path: url, queryString: '' }
      : { path: url.slice(0, question), queryString: url.slice(question + 1) };
  }
}

/** path-to-regexp 1.x's expression for `source` (not strict, to the end, ignoring case), and its captures' names. */
function compiled(source: string): { pattern: RegExp; names: string[] } {
  const names: string[] = [];
  let expression = '';
  for (const token of source.match(/\/?:\w+\??|\*|[^:*/]+|\//g) ?? []) {
    const named = /^(\/?):(\w+)(\??)$/.exec(token);
    if (named !== null) {
      names.push(named[2] as string);
      const slash = named[1] === '/' ? '\\/' : '';
      expression += named[3] === '?' ? `(?:${slash}([^\\/]+?))?` : `${slash}([^\\/]+?)`;
    } else if (token === '*') {
      names.push(String(names.length));
      expression += '(.*)';
    } else expression += token.replace(/[.+?^${}()|[\]\\/]/g, '\\$&');
  }
  return { pattern: new RegExp(`^${expression}(?:\\/(?=$))?$`, 'i'), names };
}
