// The two load generators of the benchmarks, with one result shape: wrk (a small Lua
// script per request kind, its summary read from one JSON line its done() prints) and,
// when wrk is missing or --node asks for it, a keep-alive generator on node:http.
// Both run `connections` connections, each one request at a time, for `seconds`. A request
// may name several paths, taken in turn, so that no answer comes from a cache of pages.

import { spawn, spawnSync } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { Agent, request } from 'node:http';
import { join } from 'node:path';
import { killAtExit } from './cleanup.ts';

export interface LoadRequest {
  readonly method: string;
  readonly path: string;
  /** When set, each request takes the next of these paths in turn (`path` is then only the label): answers a page cache cannot serve. */
  readonly paths?: readonly string[];
  readonly headers: Readonly<Record<string, string>>;
  /** A body that varies per request: `{n}` becomes the request's number (1, 2, …), `{price}` a price derived from it. */
  readonly bodyTemplate?: string;
  /** The status every answer must have. */
  readonly expect: number;
}

export interface LoadResult {
  /** Answers with a good status per second. */
  readonly requestsPerSecond: number;
  /** Latency percentiles in milliseconds. */
  readonly p50: number;
  readonly p99: number;
  /** Answers with another status, and failed connections or requests. */
  readonly errors: number;
}

export interface LoadGenerator {
  readonly name: string;
  run(baseUrl: string, spec: LoadRequest, connections: number, seconds: number): Promise<LoadResult>;
}

/** wrk unless it is missing or `forceNode`; Lua scripts go to `scriptDir`. */
export function chooseLoadGenerator(forceNode: boolean, scriptDir: string): LoadGenerator {
  if (forceNode) return nodeLoadGenerator;
  if (wrkIsInstalled()) return wrkLoadGenerator(scriptDir);
  console.error('note: wrk is not installed (apt-get install -y wrk); using the built-in node:http load generator');
  return nodeLoadGenerator;
}

function wrkIsInstalled(): boolean {
  return spawnSync('wrk', ['--version'], { stdio: 'ignore' }).error === undefined;
}

/** The path of request number `n` (1, 2, …). */
function pathFor(spec: LoadRequest, n: number): string {
  const paths = spec.paths;
  return paths === undefined || paths.length === 0 ? spec.path : (paths[(n - 1) % paths.length] as string);
}

/** `template` for request number `n`: `{n}` becomes n, `{price}` a price derived from it. */
export function bodyFor(template: string, n: number): string {
  return template.replaceAll('{n}', String(n)).replaceAll('{price}', String((n % 1000) / 10));
}

// ---------------------------------------------------------------------------------------
// node:http

export const nodeLoadGenerator: LoadGenerator = {
  name: 'node:http keep-alive (in the benchmark process)',
  async run(baseUrl, spec, connections, seconds) {
    const target = new URL(baseUrl);
    const agent = new Agent({ keepAlive: true, maxSockets: connections });
    const latencies: number[] = [];
    let errors = 0;
    let sent = 0;
    const one = (): Promise<void> =>
      new Promise((resolve) => {
        const n = ++sent;
        const body = spec.bodyTemplate === undefined ? undefined : bodyFor(spec.bodyTemplate, n);
        const headers =
          body === undefined ? spec.headers : { ...spec.headers, 'content-length': String(Buffer.byteLength(body)) };
        const started = performance.now();
        const req = request(
          { host: target.hostname, port: target.port, method: spec.method, path: pathFor(spec, n), headers, agent },
          (res) => {
            res.resume();
            res.once('end', () => {
              if (res.statusCode === spec.expect) latencies.push(performance.now() - started);
              else errors++;
              resolve();
            });
          },
        );
        req.once('error', () => {
          errors++;
          resolve();
        });
        req.end(body);
      });
    const started = performance.now();
    const deadline = started + seconds * 1000;
    const loop = async (): Promise<void> => {
      while (performance.now() < deadline) await one();
    };
    await Promise.all(Array.from({ length: connections }, loop));
    const elapsed = (performance.now() - started) / 1000;
    agent.destroy();
    latencies.sort((a, b) => a - b);
    const at = (fraction: number): number =>
      latencies[Math.min(latencies.length - 1, Math.floor(latencies.length * fraction))] ?? 0;
    return { requestsPerSecond: latencies.length / elapsed, p50: at(0.5), p99: at(0.99), errors };
  },
};

// ---------------------------------------------------------------------------------------
// wrk

/** What the script's done() prints (times in µs). */
interface WrkSummary {
  readonly wrk_summary: true;
  readonly requests: number;
  readonly duration: number;
  readonly p50: number;
  readonly p99: number;
  /** Answers with a status of 400 or more (wrk's count of non-2xx/3xx). */
  readonly status: number;
  readonly connect: number;
  readonly read: number;
  readonly write: number;
  readonly timeout: number;
}

const DONE_FUNCTION = `
done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    '{"wrk_summary":true,"requests":%.0f,"duration":%.0f,"p50":%.0f,"p99":%.0f,"status":%.0f,"connect":%.0f,"read":%.0f,"write":%.0f,"timeout":%.0f}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(99),
    e.status, e.connect, e.read, e.write, e.timeout))
end
`;

/** A Lua string literal; JSON's escapes are Lua's for printable ASCII, all the scripts hold. */
function luaString(text: string): string {
  if (!/^[\x20-\x7e]*$/.test(text)) throw new Error(`not printable ASCII, cannot go into a wrk script: ${text}`);
  return JSON.stringify(text);
}

function luaScript(spec: LoadRequest): string {
  const lines = [
    `wrk.method = ${luaString(spec.method)}`,
    ...Object.entries(spec.headers).map(([name, value]) => `wrk.headers[${luaString(name)}] = ${luaString(value)}`),
  ];
  const paths = spec.paths ?? [];
  if (spec.bodyTemplate !== undefined || paths.length > 0) {
    if (paths.length > 0) lines.push(`local paths = { ${paths.map(luaString).join(', ')} }`);
    // Lua tables count from 1: request n takes paths[(n - 1) % #paths + 1], as pathFor does.
    const path = paths.length > 0 ? 'paths[(n - 1) % #paths + 1]' : luaString(spec.path);
    const body = spec.bodyTemplate === undefined ? 'nil' : bodyExpression(spec.bodyTemplate);
    lines.push(
      'local n = 0',
      'request = function()',
      '  n = n + 1',
      `  return wrk.format(nil, ${path}, nil, ${body})`,
      'end',
    );
  }
  return `${lines.join('\n')}\n${DONE_FUNCTION}`;
}

/** A Lua expression building `template`'s body for request n. */
function bodyExpression(template: string): string {
  return template
    .split(/(\{n\}|\{price\})/)
    .filter((piece) => piece !== '')
    .map((piece) =>
      piece === '{n}' ? 'tostring(n)' : piece === '{price}' ? 'tostring((n % 1000) / 10)' : luaString(piece),
    )
    .join(' .. ');
}

function wrkLoadGenerator(scriptDir: string): LoadGenerator {
  const scripts = new Map<LoadRequest, string>();
  const scriptFor = async (spec: LoadRequest): Promise<string> => {
    let path = scripts.get(spec);
    if (path === undefined) {
      path = join(scriptDir, `wrk-${scripts.size + 1}.lua`);
      await writeFile(path, luaScript(spec));
      scripts.set(spec, path);
    }
    return path;
  };
  return {
    name: 'wrk -t1',
    async run(baseUrl, spec, connections, seconds) {
      const script = await scriptFor(spec);
      // -d counts whole seconds; a shorter run is ended by SIGINT, after which wrk still reports.
      const args = [
        '-t1',
        `-c${connections}`,
        `-d${Math.ceil(seconds)}s`,
        '--timeout',
        '10s',
        '-s',
        script,
        `${baseUrl}${pathFor(spec, 1)}`,
      ];
      const child = spawn('wrk', args, { stdio: ['ignore', 'pipe', 'pipe'] });
      killAtExit(child);
      let output = '';
      child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
      const interrupt = Number.isInteger(seconds) ? undefined : setTimeout(() => child.kill('SIGINT'), seconds * 1000);
      const code = await new Promise<number | null>((resolve, reject) => {
        child.once('error', reject);
        child.once('close', resolve);
      });
      clearTimeout(interrupt);
      const summary = output
        .split('\n')
        .filter((line) => line.startsWith('{"wrk_summary"'))
        .map((line) => JSON.parse(line) as WrkSummary)[0];
      if (summary === undefined)
        throw new Error(`wrk ${args.join(' ')} exited with ${code} and no summary:\n${output}`);
      const good = summary.requests - summary.status;
      return {
        requestsPerSecond: good / (summary.duration / 1e6),
        p50: summary.p50 / 1000,
        p99: summary.p99 / 1000,
        errors: summary.status + summary.connect + summary.read + summary.write + summary.timeout,
      };
    },
  };
}
