// How long the kernel's TCP stack has spent under memory pressure (Linux: TcpExt TCPMemoryPressuresChrono in
// /proc/net/netstat, in ms since boot): read before and after a phase, it says whether the sockets of the whole host
// were squeezed meanwhile, as 500 stalled event streams can do (bench/README.md: the kernel's memory for hung readers).

import { readFileSync } from 'node:fs';

/** Milliseconds the host's TCP stack has been under memory pressure since boot; undefined where it is not told. */
export function tcpPressureMs(): number | undefined {
  let text: string;
  try {
    text = readFileSync('/proc/net/netstat', 'utf8');
  } catch {
    return undefined;
  }
  const lines = text.split('\n');
  for (let index = 0; index + 1 < lines.length; index += 2) {
    const names = (lines[index] as string).split(' ');
    if (names[0] !== 'TcpExt:') continue;
    const at = names.indexOf('TCPMemoryPressuresChrono');
    const value = at === -1 ? undefined : Number((lines[index + 1] as string).split(' ')[at]);
    return value !== undefined && Number.isFinite(value) ? value : undefined;
  }
  return undefined;
}
