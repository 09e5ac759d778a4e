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
}

export interface ProcessOptions {
  readonly cwd: string;
  /** The whole environment of the child (nothing of the test's own leaks in). */
  readonly env: Record<string, string>;
  /** Run as this user and group (the test must be root). */
  readonly uid?: number;
  readonly gid?: number;
}

/** Every process started here, for `killAll` after each test. */
const started = new Set<ChildProcessWithoutNullStreams>();

export function startProcess(command: string, args: readonly string[], options: ProcessOptions): RunningProcess {
  const child = spawn(command, args, { cwd: options.cwd, env: options.env, uid: options.uid, gid: options.gid });
  started.add(child);
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
      started.delete(child);
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
  return { child, stdout: () => stdout, stderr: () => stderr, waitFor, exited };
}

/** Runs a command to its end: exit code and output. */
export async function runToExit(command: string, args: readonly string[], options: ProcessOptions): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const running = startProcess(command, args, options);
  const { code } = await running.exited;
  return { code, stdout: running.stdout(), stderr: running.stderr() };
}

/** Kills (SIGKILL) every process still running and waits for each to end. */
export async function killAll(): Promise<void> {
  const waiting = [...started].map((child) => new Promise<void>((resolve) => {
    child.once('close', () => resolve());
    child.kill('SIGKILL');
  }));
  await Promise.all(waiting);
}
