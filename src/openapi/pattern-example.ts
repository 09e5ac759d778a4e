// An example string for a declared `pattern` (JSON Schema 2020-12 §6.3.3 as OpenAPI 3.1 uses it), so that the
// examples the OpenAPI document shows fit their schemas: the shortest string the pattern's tree describes. A result
// the pattern or the length bounds refuse gives undefined; a declaration gives `examples` then (README: Your own
// resources).

import { MatchBudget, type LinearPattern } from '../patterns/linear-pattern.ts';
import type { PatternNode } from '../patterns/parse-pattern.ts';

/** Characters tried, in order, for a class, an escape or `.`. */
const CANDIDATES = [...'aeoxzAEXZ0123456789', ...'-_.@:/+ ,!#*=~', ...'éçÅλ中'];

/** Longer examples are not written: a schema that needs one gives its own `examples`. */
export const MOST_EXAMPLE_CHARACTERS = 10_000;

/** The shortest string `pattern` matches that has `minLength`..`maxLength` characters, or undefined. */
export function patternExample(pattern: LinearPattern, minLength = 0, maxLength = Infinity): string | undefined {
  for (const extra of [0, minLength]) {
    const text = written(pattern.tree, extra);
    if (text === undefined) return undefined;
    const length = [...text].length;
    if (length >= minLength && length <= maxLength && pattern.test(text, new MatchBudget())) return text;
  }
  return undefined;
}

/**
 * The text `node` describes, an open-ended repetition written `extra` more times than its least; undefined for a class
 * no candidate fits. Each repetition is written the fewest times it allows, and the first branch that can be written.
 */
function written(node: PatternNode, extra: number): string | undefined {
  switch (node.kind) {
    case 'character':
      return String.fromCodePoint(node.codePoint);
    case 'class': {
      const single = new RegExp(`^(?:${node.source})$`, 'u');
      return CANDIDATES.find((candidate) => single.test(candidate));
    }
    case 'assertion':
      return '';
    case 'sequence': {
      let text = '';
      for (const item of node.items) {
        const part = written(item, extra);
        if (part === undefined || text.length + part.length > MOST_EXAMPLE_CHARACTERS) return undefined;
        text += part;
      }
      return text;
    }
    case 'choice':
      for (const branch of node.branches) {
        const text = written(branch, extra);
        if (text !== undefined) return text;
      }
      return undefined;
    case 'repeat': {
      const times = node.most === node.least ? node.least : Math.min(node.most, node.least + extra);
      if (times === 0) return '';
      const once = written(node.node, extra);
      return once === undefined || once.length * times > MOST_EXAMPLE_CHARACTERS ? undefined : once.repeat(times);
    }
  }
}
