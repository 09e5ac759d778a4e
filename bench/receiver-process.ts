// The webhooks benchmark's handle on its receivers: bench/webhook-receivers.ts in a child process (forked with tsx, so
// an IPC channel carries the commands), asked one command at a time, its answer awaited.

import type { ChildProcess } from 'node:child_process';
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { killAtExit } from './cleanup.ts';
import { processCpuSeconds } from './server-processes.ts';
import type { ReceiverAnswer, ReceiverCommand, ReceiversReport } from './webhook-receivers.ts';

const RECEIVERS_PROGRAM = fileURLToPath(new URL('./webhook-receivers.ts', import.meta.url));

/** Where the receivers listen on 127.0.0.1: the live server, the one that never answers, and a port that refuses. */
export interface ReceiverPorts {
  readonly live: number;
  readonly hanging: number;
  readonly refusing: number;
}

export class ReceiverProcess {
  readonly #child: ChildProcess;

  private constructor(child: ChildProcess) {
    this.#child = child;
  }

  static start(): ReceiverProcess {
    const child = fork(RECEIVERS_PROGRAM, [], {
      execArgv: ['--import', 'tsx'],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    killAtExit(child);
    return new ReceiverProcess(child);
  }

  async listen(): Promise<ReceiverPorts> {
    const answer = await this.#ask({ kind: 'listen' });
    if (answer.kind !== 'listening') throw unexpected(answer);
    return answer;
  }

  /** The live subscriptions from now on, each its path on the live server and its secret; tallies start afresh. */
  async expect(subscriptions: readonly { readonly path: string; readonly secret: string }[]): Promise<void> {
    const answer = await this.#ask({ kind: 'expect', subscriptions });
    if (answer.kind !== 'expecting') throw unexpected(answer);
  }

  /** Deliveries, lags and receipt times are counted afresh from now on. */
  async mark(): Promise<void> {
    const answer = await this.#ask({ kind: 'mark' });
    if (answer.kind !== 'marked') throw unexpected(answer);
  }

  /** The fewest and most distinct events any live subscription has received. */
  async progress(): Promise<{ least: number; most: number }> {
    const answer = await this.#ask({ kind: 'progress' });
    if (answer.kind !== 'progress') throw unexpected(answer);
    return answer;
  }

  async report(): Promise<ReceiversReport> {
    const answer = await this.#ask({ kind: 'report' });
    if (answer.kind !== 'report') throw unexpected(answer);
    return answer.report;
  }

  /** CPU time the receivers' process has used so far, in seconds. */
  cpuSeconds(): number | undefined {
    return processCpuSeconds(this.#child.pid);
  }

  stop(): void {
    if (this.#child.connected) this.#child.disconnect();
  }

  #ask(command: ReceiverCommand): Promise<ReceiverAnswer> {
    return new Promise((resolve, reject) => {
      const onExit = (code: number | null): void => reject(new Error(`the receivers' process exited (${code})`));
      this.#child.once('exit', onExit);
      this.#child.once('message', (message) => {
        this.#child.off('exit', onExit);
        resolve(message as ReceiverAnswer);
      });
      this.#child.send(command);
    });
  }
}

function unexpected(answer: ReceiverAnswer): Error {
  return new Error(`unexpected answer from the receivers: ${answer.kind === 'failed' ? answer.message : answer.kind}`);
}
