// Test support: a child process whose output the test reads as it arrives — wait for a
// line, or for the exit and its status. Used by the command-line, start-up failure and
// package tests, which run plainrest as a user would.

import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { spawn } from 'node:child_process';

export interface RunningProcess {
  readonly child: ChildProcessWithoutNullStreams;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first match of `pattern` in stdout (rejects if the process exits first). */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  /** Resolves with the exit code once the process has exited. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  /** Sends `signal` to the process, or to its whole group when started with `ownGroup`. */
  signal(signal: NodeJS.Signals): void;
}

export interface ProcessOptions {
  readonly cwd: string;
  /** The whole environment of the child (nothing of the test's own leaks in). */
  readonly env: Record<string, string>;
  /** Run as this user and group (the test must be root). */
  readonly uid?: number;
  readonly gid?: number;
  /**
   * Start it in a process group of its own, so that `signalGroup` reaches what it starts
   * too (npx runs the bin as a child and does not pass signals on to it).
   */
  readonly ownGroup?: boolean;
}

/** Every process started here and still running, for `killAll` after each test. */
const started = new Set<RunningProcess>();

export function startProcess(command: string, args: readonly string[], options: ProcessOptions): RunningProcess {
  const ownGroup = options.ownGroup === true;
  const child = spawn(command, args, {
    cwd: options.cwd,
    env: options.env,
    uid: options.uid,
    gid: options.gid,
    detached: ownGroup,
  });
  let stdout = '';
  let stderr = '';
  const listeners = new Set<() => void>();
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
    for (const listener of listeners) listener();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  let done = false;
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => {
      done = true;
      started.delete(running);
      resolve({ code, signal });
      for (const listener of listeners) listener();
    });
  });
  const waitFor = (pattern: RegExp): Promise<RegExpExecArray> =>
    new Promise((resolve, reject) => {
      const check = (): void => {
        const match = pattern.exec(stdout);
        if (match !== null) {
          listeners.delete(check);
          resolve(match);
        } else if (done) {
          listeners.delete(check);
          reject(new Error(`process exited before printing ${pattern}; stdout: ${stdout}; stderr: ${stderr}`));
        }
      };
      listeners.add(check);
      check();
    });
  const signal = (name: NodeJS.Signals): void => {
    if (child.pid === undefined) return;
    try {
      if (ownGroup) process.kill(-child.pid, name);
      else child.kill(name);
    } catch {
      // already gone
    }
  };
  const running: RunningProcess = { child, stdout: () => stdout, stderr: () => stderr, waitFor, exited, signal };
  if (!done) started.add(running);
  return running;
}

/** Runs a command to its end: exit code and output. */
export async function runToExit(
  command: string,
  args: readonly string[],
  options: ProcessOptions,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const running = startProcess(command, args, options);
  const { code } = await running.exited;
  return { code, stdout: running.stdout(), stderr: running.stderr() };
}

/** Kills (SIGKILL) every process still running, with its group when it has one, and waits for each to end. */
export async function killAll(): Promise<void> {
  const running = [...started];
  for (const one of running) one.signal('SIGKILL');
  await Promise.all(running.map((one) => one.exited));
}
