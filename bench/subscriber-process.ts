// The change-feed benchmark's handle on its subscribers: bench/event-subscribers.ts in a
// child process (forked with tsx, so an IPC channel carries the commands), asked one
// command at a time, its answer awaited.

import type { ChildProcess } from 'node:child_process';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { killAtExit } from './cleanup.ts';
import { processCpuSeconds } from './server-processes.ts';
import type { StreamTally, SubscriberAnswer, SubscriberCommand } from './event-subscribers.ts';

const SUBSCRIBERS_PROGRAM = fileURLToPath(new URL('./event-subscribers.ts', import.meta.url));

export class SubscriberProcess {
  readonly #child: ChildProcess;

  private constructor(child: ChildProcess) {
    this.#child = child;
  }

  static start(): SubscriberProcess {
    const child = fork(SUBSCRIBERS_PROGRAM, [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    killAtExit(child);
    return new SubscriberProcess(child);
  }

  /** Opens `perToken` streams with each of `tokens`, the first `stalled` of them never reading; the number opened. */
  async connect(url: string, tokens: readonly string[], perToken: number, stalled = 0): Promise<number> {
    const answer = await this.#ask({ kind: 'connect', url, tokens, perToken, stalled });
    if (answer.kind !== 'connected') throw new Error(`the subscribers could not connect: ${describe(answer)}`);
    return answer.streams;
  }

  async progress(): Promise<{ least: number; most: number; open: number }> {
    const answer = await this.#ask({ kind: 'progress' });
    if (answer.kind !== 'progress') throw new Error(`unexpected answer from the subscribers: ${describe(answer)}`);
    return answer;
  }

  async report(): Promise<readonly StreamTally[]> {
    const answer = await this.#ask({ kind: 'report' });
    if (answer.kind !== 'report') throw new Error(`unexpected answer from the subscribers: ${describe(answer)}`);
    return answer.tallies;
  }

  /** Closes every stream (the client ends the connection). */
  async close(): Promise<void> {
    await this.#ask({ kind: 'close' });
  }

  /** CPU time the subscribers' process has used so far, in seconds. */
  cpuSeconds(): number | undefined {
    return processCpuSeconds(this.#child.pid);
  }

  stop(): void {
    if (this.#child.connected) this.#child.disconnect();
  }

  #ask(command: SubscriberCommand): Promise<SubscriberAnswer> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null): void => reject(new Error(`the subscribers' process exited (${code})`));
      this.#child.once('exit', onExit);
      this.#child.once('message', (message) => {
        this.#child.off('exit', onExit);
        resolve(message as SubscriberAnswer);
      });
      this.#child.send(command);
    });
  }
}

function describe(answer: SubscriberAnswer): string {
  return answer.kind === 'failed' ? answer.message : answer.kind;
}
