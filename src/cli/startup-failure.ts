// Why a start failed, as the one line the command line prints: `cannot start: <what is
// wrong>; <what to do>`, never a stack trace. Errors plainrest raises itself
// (ConfigError, StartupError) already say both; system errors (errno codes from
// listen, mkdir, open) are turned into the same shape here, naming the setting to change.

import { isAbsolute, relative, resolve } from 'node:path';

/** What the failing start was asked to do, for the advice. */
export interface AttemptedStart {
  readonly port: number;
  readonly host: string;
  readonly dataDir: string | null;
}

const PREFIX = 'cannot start: ';

/** One line, beginning `cannot start: `. */
export function describeStartupFailure(error: unknown, attempt: AttemptedStart): string {
  const system = error as Partial<NodeJS.ErrnoException>;
  if (typeof system.code === 'string' && typeof system.syscall === 'string')
    return PREFIX + describeSystemError(system, attempt);
  const message = error instanceof Error ? error.message : String(error);
  const oneLine = message.split('\n')[0] ?? '';
  return oneLine.startsWith(PREFIX) ? oneLine : PREFIX + oneLine;
}

function describeSystemError(error: Partial<NodeJS.ErrnoException>, attempt: AttemptedStart): string {
  const { code, syscall } = error;
  const { port, host } = attempt;
  if (syscall === 'listen' || syscall === 'bind' || syscall === 'getaddrinfo') {
    if (code === 'EADDRINUSE')
      return (
        `port ${port} on ${host} is already in use; stop the program using it, or choose another port with ` +
        `--port (0 picks a free one)`
      );
    if (code === 'EADDRNOTAVAIL')
      return (
        `${host} is not an address of this machine; choose one with --host (127.0.0.1: this machine only; ` +
        `0.0.0.0: every interface)`
      );
    if (code === 'EACCES' || code === 'EPERM')
      return `not allowed to listen on port ${port}; ports below 1024 need privileges: choose another with --port`;
    if (code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EAI_NONAME')
      return `the host name ${host} does not resolve to an address; give an IP address with --host`;
    return `could not listen on ${host}:${port} (${code}); check --host and --port`;
  }
  const where = shownPath(error.path);
  const dataDir = attempt.dataDir;
  const inDataDir = dataDir !== null && error.path !== undefined && isInside(error.path, dataDir);
  const subject = inDataDir ? `the data directory ${dataDir}` : (where ?? 'a file');
  const advice = inDataDir ? 'choose another with --data-dir (DATA_DIR)' : 'check the settings naming it';
  const detail =
    where === undefined || (dataDir !== null && resolve(where) === resolve(dataDir)) ? '' : ` (${syscall} ${where})`;
  if (code === 'EACCES' || code === 'EPERM')
    return `no permission to write in ${subject}${detail}; give this user write access, or ${advice}`;
  if (code === 'EEXIST') return `${subject} is a file, not a directory; ${advice}`;
  if (code === 'ENOTDIR') return `${subject} is not a directory (a part of the path ${where} is a file); ${advice}`;
  if (code === 'EROFS') return `${subject} is on a read-only file system; ${advice}`;
  if (code === 'ENOSPC' || code === 'EDQUOT') return `no space left for ${subject}; free some space, or ${advice}`;
  if (code === 'EISDIR') return `${where} is a directory where a file was expected; move it away, or ${advice}`;
  return `${syscall} ${where ?? ''} failed (${code}); ${advice}`;
}

function shownPath(path: string | undefined): string | undefined {
  if (path === undefined) return undefined;
  const fromHere = relative(process.cwd(), path);
  return fromHere !== '' && !fromHere.startsWith('..') && !isAbsolute(fromHere) ? fromHere : path;
}

function isInside(path: string, directory: string): boolean {
  const fromDirectory = relative(resolve(directory), resolve(path));
  return fromDirectory === '' || (!fromDirectory.startsWith('..') && !isAbsolute(fromDirectory));
}
