// A linearizability checker for registers (issue 48): each record is a register holding a token (a string written by
// one write only) or nothing (absent), read, written, compared-and-set and deleted by concurrent clients. Wing & Gong's
// search as Lowe improved it (WGL), memoised on (ops linearized, state); records are checked one by one, which is sound
// since linearizability is local (Herlihy & Wing 1990). Pure: no node:test, no I/O, so bench/ uses it too.

/** A register's state: a token, absent (`null`), or ANY (a history cut at a quiet moment starts from any state). */
export type RegisterState = string | null | typeof ANY;

/** The state of a register whose value at the start is not known (a history cut at a moment no operation spans). */
export const ANY = Symbol('any state');

/**
 * What an operation's answer said:
 * - `ok`: a read's value (`observed`), a write's or a compare-and-set's 200, a delete's 204;
 * - `failed`: a compare-and-set's 412 (the value was not `expected`);
 * - `absent`: a 404 (no record), for any kind of operation;
 * - `unknown`: no answer (the process died, or an error): it took effect once between `invoke` and `complete`, or
 *   never.
 */
export type Outcome = 'ok' | 'failed' | 'absent' | 'unknown';

export interface RegisterOp {
  /** The register (the record's id). */
  readonly key: number;
  /** Who sent it: one client sends one operation at a time. */
  readonly client: number;
  readonly kind: 'read' | 'write' | 'cas' | 'delete';
  /** A write's or a compare-and-set's new token. */
  readonly value?: string;
  /** A compare-and-set's expected token (the one its If-Match ETag named). */
  readonly expected?: string;
  /** A successful read's token. */
  readonly observed?: string;
  readonly outcome: Outcome;
  /** When it was sent, and when its answer had arrived: the latest moment it can have taken effect (ms, one clock). */
  readonly invoke: number;
  readonly complete: number;
}

export interface Verdict {
  readonly linearizable: boolean;
  /** The search gave up after `budget` configurations: neither proved nor refuted. */
  readonly gaveUp: boolean;
  /** Configurations (ops linearized, state) visited. */
  readonly explored: number;
  /** The longest order found that explains the start of the history (a non-linearizable one stops short). */
  readonly longest: readonly RegisterOp[];
}

/** The states an operation may leave `state` in, given its answer; none when its answer is impossible from `state`. */
export function step(state: RegisterState, op: RegisterOp): RegisterState[] {
  const present = state !== null;
  switch (op.kind) {
    case 'read':
      if (op.outcome === 'ok') return state === ANY || state === op.observed ? [op.observed as string] : [];
      if (op.outcome === 'absent') return present && state !== ANY ? [] : [null];
      if (op.outcome === 'unknown') return [state];
      return [];
    case 'write':
      if (op.outcome === 'ok') return present ? [op.value as string] : [];
      if (op.outcome === 'absent') return present && state !== ANY ? [] : [null];
      if (op.outcome === 'unknown') return present ? [state, op.value as string] : [state];
      return [];
    case 'cas':
      if (op.outcome === 'ok') return state === ANY || state === op.expected ? [op.value as string] : [];
      if (op.outcome === 'failed') return present && state !== op.expected ? [state] : [];
      if (op.outcome === 'absent') return present && state !== ANY ? [] : [null];
      if (op.outcome === 'unknown')
        return state === ANY || state === op.expected ? [state, op.value as string] : [state];
      return [];
    case 'delete':
      if (op.outcome === 'ok') return present ? [null] : [];
      if (op.outcome === 'absent') return present && state !== ANY ? [] : [null];
      if (op.outcome === 'unknown') return present ? [state, null] : [state];
      return [];
  }
}

/** Whether an operation can change the register, by its kind and answer (reads, 412s and 404s never do). */
export function mayChange(op: RegisterOp): boolean {
  return op.kind !== 'read' && (op.outcome === 'ok' || op.outcome === 'unknown');
}

interface Entry {
  readonly op: number;
  readonly call: boolean;
  readonly time: number;
  prev: Entry | undefined;
  next: Entry | undefined;
  /** A call's return. */
  match: Entry | undefined;
}

interface Frame {
  readonly entry: Entry;
  readonly state: RegisterState;
  readonly outcome: number;
}

const DEFAULT_BUDGET = 2_000_000;

/**
 * Whether one register's history is linearizable from `initial`: some total order of its operations, each placed
 * between its invocation and its completion, in which every answer is what the register would have given (an
 * operation without an answer may also be left out). Operations overlapping in time (one's completion not before the
 * other's invocation) may take either order.
 */
export function checkRegister(
  ops: readonly RegisterOp[],
  initial: RegisterState,
  budget: number = DEFAULT_BUDGET,
): Verdict {
  const events: Entry[] = [];
  ops.forEach((op, index) => {
    if (!(op.invoke <= op.complete)) throw new Error(`operation ${index} completes before it is invoked`);
    const call: Entry = { op: index, call: true, time: op.invoke, prev: undefined, next: undefined, match: undefined };
    const ret: Entry = {
      op: index,
      call: false,
      time: op.complete,
      prev: undefined,
      next: undefined,
      match: undefined,
    };
    call.match = ret;
    events.push(call, ret);
  });
  // At the same instant, calls come first: such operations count as overlapping, the more permissive reading.
  events.sort((a, b) => a.time - b.time || Number(b.call) - Number(a.call) || a.op - b.op);
  const head: Entry = { op: -1, call: false, time: -Infinity, prev: undefined, next: undefined, match: undefined };
  let last = head;
  for (const event of events) {
    event.prev = last;
    last.next = event;
    last = event;
  }

  const lift = (call: Entry): void => {
    for (const entry of [call, call.match as Entry]) {
      (entry.prev as Entry).next = entry.next;
      if (entry.next !== undefined) entry.next.prev = entry.prev;
    }
  };
  const unlift = (call: Entry): void => {
    for (const entry of [call.match as Entry, call]) {
      (entry.prev as Entry).next = entry;
      if (entry.next !== undefined) entry.next.prev = entry;
    }
  };

  const linearized = new Uint16Array(Math.ceil(ops.length / 16));
  const toggle = (op: number): void => {
    linearized[op >> 4] = (linearized[op >> 4] as number) ^ (1 << (op & 15));
  };
  const seen = new Set<string>();
  const stateKey = (state: RegisterState): string => (state === ANY ? '\u0001' : state === null ? '\u0000' : state);
  const key = (state: RegisterState): string => {
    let text = '';
    for (let i = 0; i < linearized.length; i += 4096)
      text += String.fromCharCode(...linearized.subarray(i, Math.min(i + 4096, linearized.length)));
    return `${text}|${stateKey(state)}`;
  };

  const stack: Frame[] = [];
  let longest: number[] = [];
  let state = initial;
  let entry = head.next;
  let outcome = 0;
  let explored = 0;
  const verdict = (linearizable: boolean, gaveUp = false): Verdict => ({
    linearizable,
    gaveUp,
    explored,
    longest: longest.map((index) => ops[index] as RegisterOp),
  });

  while (head.next !== undefined) {
    const current = entry as Entry;
    if (current.call) {
      const nextStates = step(state, ops[current.op] as RegisterOp);
      let advanced = false;
      for (; outcome < nextStates.length; outcome++) {
        const next = nextStates[outcome] as RegisterState;
        toggle(current.op);
        const configuration = key(next);
        if (!seen.has(configuration)) {
          seen.add(configuration);
          if (++explored > budget) return verdict(false, true);
          stack.push({ entry: current, state, outcome });
          if (stack.length > longest.length) longest = stack.map((frame) => frame.entry.op);
          state = next;
          lift(current);
          entry = head.next;
          outcome = 0;
          advanced = true;
          break;
        }
        toggle(current.op);
      }
      if (!advanced) {
        entry = current.next;
        outcome = 0;
      }
    } else {
      // An operation's completion, and it is not in the order yet: undo the last choice and try the next one.
      const frame = stack.pop();
      if (frame === undefined) return verdict(false);
      state = frame.state;
      toggle(frame.entry.op);
      unlift(frame.entry);
      entry = frame.entry;
      outcome = frame.outcome + 1;
    }
  }
  return verdict(true);
}

/** Each register's operations, in the order given. */
export function byKey(ops: readonly RegisterOp[]): Map<number, RegisterOp[]> {
  const histories = new Map<number, RegisterOp[]>();
  for (const op of ops) {
    const history = histories.get(op.key);
    if (history === undefined) histories.set(op.key, [op]);
    else history.push(op);
  }
  return histories;
}

/**
 * A small part of a non-linearizable history that is still not linearizable, and whose failure implies the whole
 * one's. Each cut keeps that implication:
 * - the start, up to a moment no operation spans, is left out, the register then starting from ANY state (every order
 *   of the whole history places the operations before that moment first);
 * - the end is cut at the earliest completion where the part before it fails, operations still running there made
 *   unanswered (reads dropped): a prefix of a linearizable history is linearizable;
 * - operations that change nothing (reads, 412s, 404s) are removed one by one while the rest still fails;
 * - then so is a change no operation left refers to (its token read or expected) when no 412 is left (for a write) or
 *   no 404 (for a delete): in any order of the rest, what followed it then follows what came before it, unharmed.
 */
export function minimalViolation(ops: readonly RegisterOp[], initial: RegisterState): readonly RegisterOp[] {
  const fails = (part: readonly RegisterOp[], from: RegisterState): boolean => {
    const verdict = checkRegister(part, from);
    return !verdict.linearizable && !verdict.gaveUp;
  };
  let part = [...ops].sort((a, b) => a.invoke - b.invoke);
  let from = initial;
  if (!fails(part, from)) return part;

  // The latest quiet moment after which the rest still fails (if it fails after one, it fails after every earlier one).
  const moments = quietMoments(part);
  const after = (moment: number): RegisterOp[] => part.filter((op) => op.invoke > moment);
  let lowMoment = -1;
  let highMoment = moments.length - 1;
  while (lowMoment < highMoment) {
    const middle = (lowMoment + highMoment + 1) >> 1;
    if (fails(after(moments[middle] as number), ANY)) lowMoment = middle;
    else highMoment = middle - 1;
  }
  if (lowMoment >= 0) {
    part = after(moments[lowMoment] as number);
    from = ANY;
  }

  // The earliest completion at which the history up to it already fails.
  const completions = [...new Set(part.map((op) => op.complete).filter((time) => time !== Infinity))].sort(
    (a, b) => a - b,
  );
  let low = 0;
  let high = completions.length - 1;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (fails(prefix(part, completions[middle] as number), from)) high = middle;
    else low = middle + 1;
  }
  if (completions.length > 0) {
    const cut = prefix(part, completions[low] as number);
    if (fails(cut, from)) part = cut;
  }

  for (const removable of [(op: RegisterOp) => !mayChange(op), (op: RegisterOp) => mayChange(op)]) {
    for (let index = part.length - 1; index >= 0; index--) {
      const op = part[index] as RegisterOp;
      if (!removable(op)) continue;
      const rest = part.filter((_, other) => other !== index);
      if (mayChange(op) && !forgettable(op, rest)) continue;
      if (fails(rest, from)) part = rest;
    }
  }
  return part;
}

/** Moments no operation spans (ops sorted by invocation): every operation invoked before one has completed by it. */
function quietMoments(ops: readonly RegisterOp[]): number[] {
  const moments: number[] = [];
  let completedBy = -Infinity;
  for (const op of ops) {
    if (completedBy !== -Infinity && op.invoke > completedBy) moments.push(completedBy);
    completedBy = Math.max(completedBy, op.complete);
  }
  return moments;
}

/** The operations invoked by `time`, those completing after it made unanswered (an unanswered read is dropped). */
function prefix(ops: readonly RegisterOp[], time: number): RegisterOp[] {
  const kept: RegisterOp[] = [];
  for (const op of ops) {
    if (op.invoke > time) continue;
    if (op.complete <= time) kept.push(op);
    else if (op.kind !== 'read') kept.push({ ...op, outcome: 'unknown', complete: time });
  }
  return kept;
}

/** Whether leaving out the change `op` keeps "the rest fails" implying "the whole fails" (see minimalViolation). */
function forgettable(op: RegisterOp, rest: readonly RegisterOp[]): boolean {
  if (op.kind === 'delete') return !rest.some((other) => other.outcome === 'absent');
  return !rest.some(
    (other) => other.outcome === 'failed' || other.observed === op.value || other.expected === op.value,
  );
}

/** A moment shown among the operations, such as a kill. */
export interface Mark {
  readonly time: number;
  readonly label: string;
}

/** A line per operation, by invocation, and per mark: times in ms from the first, the client, request and answer. */
export function describeHistory(ops: readonly RegisterOp[], marks: readonly Mark[] = []): string {
  const sorted = [...ops].sort((a, b) => a.invoke - b.invoke);
  const origin = sorted[0]?.invoke ?? 0;
  const end = Math.max(...sorted.map((op) => op.complete));
  const time = (t: number): string => (t === Infinity ? '∞' : (t - origin).toFixed(3));
  const lines = sorted.map((op) => ({
    time: op.invoke,
    text: `  [${time(op.invoke)} → ${time(op.complete)}] client ${op.client}: ${describe(op)}`,
  }));
  for (const mark of marks)
    if (mark.time >= origin && mark.time <= end)
      lines.push({ time: mark.time, text: `  [${time(mark.time)}] ${mark.label}` });
  return lines
    .sort((a, b) => a.time - b.time)
    .map((line) => line.text)
    .join('\n');
}

export function describe(op: RegisterOp): string {
  const answer = { ok: 'ok', failed: '412', absent: '404', unknown: 'no answer' }[op.outcome];
  switch (op.kind) {
    case 'read':
      return `read → ${op.outcome === 'ok' ? op.observed : answer}`;
    case 'write':
      return `write ${op.value} → ${answer}`;
    case 'cas':
      return `cas ${op.expected} → ${op.value} → ${answer}`;
    case 'delete':
      return `delete → ${answer}`;
  }
}
