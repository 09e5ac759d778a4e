// A declared `pattern`, matched in time linear in the value's length whatever the pattern
// (no catastrophic backtracking, README: Security). The tree from parse-pattern.ts becomes
// a Thompson automaton whose states are all followed at once, one character at a time
// (Russ Cox, "Regular Expression Matching Can Be Simple And Fast", 2007).

import { parsePattern, UnsupportedPattern, type PatternNode } from './parse-pattern.ts';

/** The most automaton states a pattern may spell out, counted repetitions written out (`a{500}` is 500). */
export const MAX_PATTERN_STATES = 2_000;

/**
 * States one request's patterns may follow in all: about 150 ms of matching here. An
 * ordinary pattern follows a few states per character, so only a value megabytes long,
 * or one against a pattern that keeps hundreds of states alive, spends it.
 */
export const MATCH_STEPS_PER_REQUEST = 10_000_000;

/** The matching work one request has left; `test` spends it and throws MatchBudgetSpent at zero. */
export class MatchBudget {
  steps = MATCH_STEPS_PER_REQUEST;
}

export class MatchBudgetSpent extends Error {}

// What a state does; `argument` and `next` say with what and where to go after.
const MATCH = 0; // the whole pattern has matched
const CHARACTER = 1; // consume one code point equal to `argument`
const CLASS = 2; // consume one code point that classes[argument] accepts
const SPLIT = 3; // go on at `next` and at `other` both
const ASSERT = 4; // go on at `next` if the assertion ASSERTIONS[argument] holds here

const ASSERTIONS = ['^', '$', 'b', 'B'] as const;

/** A character atom (a class, `.`, an escape) asked once per ASCII character and remembered. */
class CharacterClass {
  private readonly single: RegExp;
  private readonly ascii = new Int8Array(128); // 0 not asked yet, 1 accepted, -1 refused

  constructor(source: string) {
    this.single = new RegExp(`^(?:${source})$`, 'u');
  }

  has(codePoint: number): boolean {
    if (codePoint >= 128) return this.single.test(String.fromCodePoint(codePoint));
    let known = this.ascii[codePoint] as number;
    if (known === 0) this.ascii[codePoint] = known = this.single.test(String.fromCharCode(codePoint)) ? 1 : -1;
    return known === 1;
  }
}

/** The states reached at one position, each once, cleared in constant time (a sparse set). */
class StateSet {
  readonly members: Int32Array;
  private readonly where: Int32Array;
  size = 0;

  constructor(states: number) {
    this.members = new Int32Array(states);
    this.where = new Int32Array(states);
  }

  has(state: number): boolean {
    const index = this.where[state] as number;
    return index < this.size && this.members[index] === state;
  }

  add(state: number): void {
    this.where[state] = this.size;
    this.members[this.size++] = state;
  }
}

/**
 * A compiled pattern: `source` as declared, `test` as RegExp's (a match anywhere in the
 * value, JSON Schema patterns being unanchored) within a budget of work. The constructor
 * throws UnsupportedPattern for what it cannot run; `source` must already compile with
 * `new RegExp(source, 'u')`.
 */
export class LinearPattern {
  readonly source: string;
  /** The pattern as parse-pattern.ts reads it (the OpenAPI example writer walks it too). */
  readonly tree: PatternNode;
  private readonly kind: number[] = [MATCH];
  private readonly argument: number[] = [0];
  private readonly next: number[] = [-1];
  private readonly other: number[] = [-1];
  private readonly classes: CharacterClass[] = [];
  private readonly start: number;
  private current: StateSet;
  private following: StateSet;
  private readonly pending: Int32Array;

  constructor(source: string) {
    this.source = source;
    const tree = parsePattern(source);
    this.tree = tree;
    const states = stateCount(tree) + 1;
    if (states > MAX_PATTERN_STATES) {
      throw new UnsupportedPattern(
        `spells out ${states > 1e9 ? 'over a billion' : states} states once its counted repetitions are written out; ` +
          `at most ${MAX_PATTERN_STATES} are allowed`,
      );
    }
    const classIndex = new Map<string, number>();
    this.start = this.compile(tree, MATCH, classIndex);
    this.current = new StateSet(this.kind.length);
    this.following = new StateSet(this.kind.length);
    this.pending = new Int32Array(2 * this.kind.length + 1);
  }

  test(value: string, budget: MatchBudget): boolean {
    this.current.size = 0;
    this.follow(this.current, this.start, 0, value, budget);
    for (let index = 0; ;) {
      if (this.current.has(MATCH)) return true;
      if (index >= value.length) return false;
      const codePoint = value.codePointAt(index) as number;
      const after = index + (codePoint > 0xffff ? 2 : 1);
      const { current, following } = this;
      following.size = 0;
      for (let member = 0; member < current.size; member++) {
        const state = current.members[member] as number;
        const kind = this.kind[state];
        const accepted =
          kind === CHARACTER
            ? this.argument[state] === codePoint
            : kind === CLASS && (this.classes[this.argument[state] as number] as CharacterClass).has(codePoint);
        if (accepted) this.follow(following, this.next[state] as number, after, value, budget);
      }
      this.follow(following, this.start, after, value, budget); // a match may begin at any position
      this.current = following;
      this.following = current;
      index = after;
    }
  }

  /** Adds `state` to `set` with every state reachable from it without consuming a character at `index`. */
  private follow(set: StateSet, state: number, index: number, value: string, budget: MatchBudget): void {
    const pending = this.pending;
    let count = 0;
    pending[count++] = state;
    while (count > 0) {
      const at = pending[--count] as number;
      if (set.has(at)) continue;
      if (--budget.steps < 0) throw new MatchBudgetSpent();
      set.add(at);
      const kind = this.kind[at];
      if (kind === SPLIT) {
        pending[count++] = this.other[at] as number;
        pending[count++] = this.next[at] as number;
      } else if (kind === ASSERT && holds(ASSERTIONS[this.argument[at] as number] as string, index, value)) {
        pending[count++] = this.next[at] as number;
      }
    }
  }

  /** The first state of `node`, compiled so that it goes on to `next` once matched. */
  private compile(node: PatternNode, next: number, classIndex: Map<string, number>): number {
    switch (node.kind) {
      case 'character':
        return this.add(CHARACTER, node.codePoint, next);
      case 'class': {
        let index = classIndex.get(node.source);
        if (index === undefined) {
          index = this.classes.push(new CharacterClass(node.source)) - 1;
          classIndex.set(node.source, index);
        }
        return this.add(CLASS, index, next);
      }
      case 'assertion':
        return this.add(ASSERT, ASSERTIONS.indexOf(node.which), next);
      case 'sequence':
        return node.items.reduceRight((after, item) => this.compile(item, after, classIndex), next);
      case 'choice': {
        const starts = node.branches.map((branch) => this.compile(branch, next, classIndex));
        return starts.reduceRight((rest, first) => this.add(SPLIT, 0, first, rest));
      }
      case 'repeat': {
        let rest = next;
        if (node.most === Infinity) {
          const loop = this.add(SPLIT, 0, -1, next);
          this.next[loop] = this.compile(node.node, loop, classIndex);
          rest = loop;
        } else {
          for (let optional = node.least; optional < node.most; optional++)
            rest = this.add(SPLIT, 0, this.compile(node.node, rest, classIndex), next);
        }
        for (let required = 0; required < node.least; required++) rest = this.compile(node.node, rest, classIndex);
        return rest;
      }
    }
  }

  private add(kind: number, argument: number, next: number, other = -1): number {
    this.kind.push(kind);
    this.argument.push(argument);
    this.next.push(next);
    this.other.push(other);
    return this.kind.length - 1;
  }
}

/** How many states `node` compiles to (a number past MAX_PATTERN_STATES stops counting exactly). */
function stateCount(node: PatternNode): number {
  switch (node.kind) {
    case 'character':
    case 'class':
    case 'assertion':
      return 1;
    case 'sequence':
      return node.items.reduce((sum, item) => sum + stateCount(item), 0);
    case 'choice':
      return node.branches.reduce((sum, branch) => sum + stateCount(branch), node.branches.length - 1);
    case 'repeat': {
      const one = stateCount(node.node);
      const optional = node.most === Infinity ? 1 : node.most - node.least;
      return node.least * one + optional * (one + 1);
    }
  }
}

/** Whether an assertion holds at `index` (no `m` flag: `^` and `$` are the ends of the value). */
function holds(which: string, index: number, value: string): boolean {
  if (which === '^') return index === 0;
  if (which === '$') return index === value.length;
  const boundary = isWordCharacter(value.charCodeAt(index - 1)) !== isWordCharacter(value.charCodeAt(index));
  return which === 'b' ? boundary : !boundary;
}

/** `\w` with the `u` flag and no `i`: ASCII letters, digits and `_` (NaN, past either end, is not). */
function isWordCharacter(code: number): boolean {
  return (code >= 48 && code <= 57) || (code >= 65 && code <= 90) || (code >= 97 && code <= 122) || code === 95;
}
