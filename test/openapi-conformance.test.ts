// A property-based check of the OpenAPI document against the server (issue 49; README: The OpenAPI document): for
// every operation and every caller (the administrator, a user, no one, a read-only and a read-write API key), seeded
// requests drawn from the document alone, each answer checked by openapi-conformance.ts. The example domain and
// three declared ones (one of uuid and string ids; the library and the workshop try the API keys in the long run only:
// test/long-run.ts); a fresh server per caller, rate limiting off. OPENAPI_CONFORMANCE_SEED and _CASES vary the run.

import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { ServerOptions } from '../src/index.ts';
import type { Answer, Caller, Document, Operation, PlannedRequest, RunMemory } from './conformance-requests.ts';
import { Client, members, operationsOf, planRequest, RecordPool, signatureOf } from './conformance-requests.ts';
import { Conformance } from './openapi-conformance.ts';
import { KANBAN, LIBRARY, WORKSHOP } from './declared-domains.ts';
import { mulberry32, startTestServer, tokenFor } from './helpers.ts';
import { scaled } from './long-run.ts';
import type { TestServer } from './helpers.ts';

const SEED = Number(process.env['OPENAPI_CONFORMANCE_SEED'] ?? 49);
/** Requests per operation and caller: one, and three in the long run (test/long-run.ts). */
const CASES = Number(process.env['OPENAPI_CONFORMANCE_CASES'] ?? scaled(1, 3));
/** Records made per collection and vocabulary before the run, in at most so many tries. */
const MADE_PER_COLLECTION = 2;
const MAKING_ATTEMPTS = 4;
/** Parents whose children are listed (a user's orders), to find ids that exist. */
const LISTED_PARENTS = 6;
/** Problems shown per failure (a list's schema can fail once per record). */
const SHOWN_PROBLEMS = 6;
/** Failures shown per kind (an operation, a status and what was wrong), with how many more there were. */
const SHOWN_PER_KIND = 1;

const CALLER_KINDS = ['administrator', 'user', 'anonymous', 'read-only API key', 'read-write API key'] as const;
type CallerKind = (typeof CALLER_KINDS)[number];
/** The API keys' rules are the same in every domain: the library and the workshop try them in the long run only. */
const WITHOUT_KEYS = scaled<readonly CallerKind[]>(
  CALLER_KINDS.filter((kind) => !kind.endsWith('API key')),
  CALLER_KINDS,
);

interface Domain {
  readonly name: string;
  readonly options: ServerOptions;
  readonly callers: readonly CallerKind[];
}

const DOMAINS: readonly Domain[] = [
  { name: 'the example domain', options: { seed: true }, callers: CALLER_KINDS },
  {
    name: 'the declared library (test/declared-domains.ts)',
    options: { resources: LIBRARY },
    callers: WITHOUT_KEYS,
  },
  {
    name: 'the declared workshop (test/declared-domains.ts)',
    options: { resources: WORKSHOP },
    callers: WITHOUT_KEYS,
  },
  {
    name: 'the declared kanban of uuid and string ids (test/declared-domains.ts)',
    options: { resources: KANBAN },
    callers: CALLER_KINDS,
  },
];

interface Failure {
  readonly caller: string;
  readonly operation: Operation;
  readonly request: PlannedRequest;
  readonly answer: Answer | undefined;
  readonly problems: readonly string[];
}

/** A run of one caller against its own server: what it sent, and what broke the document. */
interface Run {
  readonly failures: Failure[];
  readonly statuses: Map<number, number>;
  /** How many operations the document has. */
  readonly operations: number;
  readonly client: Client;
  readonly conformance: Conformance;
  readonly pool: RecordPool;
  readonly memory: RunMemory;
  readonly random: () => number;
  readonly doc: Document;
}

/** A number from a text, to give each run a seed of its own. */
function hashed(text: string): number {
  let hash = 2166136261;
  for (const character of text) hash = Math.imul(hash ^ (character.codePointAt(0) as number), 16777619);
  return hash >>> 0;
}

/** The user a token names (its `sub`, RFC 7519 §4.1.2). */
function subjectOf(token: string): number {
  const payload = JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sub: string };
  return Number(payload.sub);
}

/** Sends one request the document allows for `operation` as `caller`, checks the answer, and notes what it made. */
async function exercise(run: Run, operation: Operation, caller: Caller): Promise<Answer | undefined> {
  const request = planRequest(operation, {
    random: run.random,
    doc: run.doc,
    pool: run.pool,
    caller,
    memory: run.memory,
  });
  const unsampled = request.samples.flatMap((drawn) =>
    run.conformance.requestProblems(drawn.at, drawn.value).map((problem) => `the run drew ${problem}`),
  );
  if (unsampled.length > 0) {
    run.failures.push({ caller: caller.name, operation, request, answer: undefined, problems: unsampled });
    return undefined;
  }
  const answer = await run.client.send(request);
  run.statuses.set(answer.status, (run.statuses.get(answer.status) ?? 0) + 1);
  const problems = run.conformance.answerProblems(operation, request, answer);
  if (problems.length > 0) run.failures.push({ caller: caller.name, operation, request, answer, problems });
  remember(run, request, answer);
  return answer;
}

/** What later requests draw on: the records made and deleted, the entity tags seen. */
function remember(run: Run, request: PlannedRequest, answer: Answer): void {
  const path = request.target.split('?')[0] as string;
  const location = answer.headers['location'];
  if (answer.status === 201 && typeof location === 'string') run.pool.add(location);
  if (request.method === 'DELETE' && answer.status === 204) run.pool.remove(path);
  const etag = answer.headers['etag'];
  if (answer.status === 200 && typeof etag === 'string' && !request.target.includes('?'))
    run.memory.entityTags.set(path, etag);
}

/** A GET of JSON that the run needs (the document, a list of ids), not one it checks. */
function plainGet(target: string, token: string | undefined): PlannedRequest {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (token !== undefined) headers['Authorization'] = `Bearer ${token}`;
  return {
    method: 'GET',
    target,
    headers,
    body: undefined,
    bodySchema: undefined,
    bodyValue: undefined,
    reusedIdempotencyKey: false,
    samples: [],
  };
}

/** The list operations (a GET whose path has an item path just below it), parents first, each with that item path. */
function listOperations(operations: readonly Operation[]): { list: Operation; item: string }[] {
  const templates = operations.map((operation) => operation.template);
  const below = (list: string, template: string): boolean =>
    template.startsWith(`${list}/{`) && !template.slice(list.length + 2).includes('/');
  return operations
    .flatMap((list) => {
      const item = list.method === 'get' ? templates.find((template) => below(list.template, template)) : undefined;
      return item === undefined ? [] : [{ list, item }];
    })
    .sort((one, other) => signatureOf(one.item).length - signatureOf(other.item).length);
}

/** Every record the administrator can list, into the pool ("ids that exist, taken from list answers"). */
async function listEverything(run: Run, administrator: string, operations: readonly Operation[]): Promise<void> {
  const listed = new Set<string>();
  for (const { list, item } of listOperations(operations)) {
    if (listed.has(signatureOf(item))) continue; // the same records in another vocabulary
    listed.add(signatureOf(item));
    const parents = signatureOf(list.template);
    const tuples = parents === '' ? [[]] : run.pool.existing(parents).slice(0, LISTED_PARENTS);
    for (const tuple of tuples) {
      const names = parents.split('/');
      const path = list.template.replace(/\{([^}]+)\}/g, (_, name: string) => String(tuple[names.indexOf(name)]));
      const answer = await run.client.send(plainGet(`${path}?limit=100`, administrator));
      if (answer.status !== 200) continue;
      for (const record of members(JSON.parse(answer.text) as Document, 'data'))
        run.pool.add(`${path}/${String(record['id'])}`);
    }
  }
}

/** The callers of a server: the administrator, a user, no one, and that user's two API keys. */
async function callersOf(api: TestServer, run: Run): Promise<Record<CallerKind, Caller>> {
  const administratorToken = api.token as string;
  const administrator: Caller = {
    name: 'administrator',
    token: administratorToken,
    userId: subjectOf(administratorToken),
    keyId: undefined,
    administrator: true,
  };
  const users = (await api.get('/v1/users?role=user&limit=1')).body as { data: { id: number }[] };
  const userId =
    users.data[0]?.id ??
    ((await api.post('/v1/users', { name: 'Conformance', email: 'conformance@example.com' })).body.id as number);
  const user: Caller = { name: 'user', token: tokenFor(userId), userId, keyId: undefined, administrator: false };
  const key = async (readOnly: boolean): Promise<Caller> => {
    const made = await api
      .as(user.token)
      .post(`/v1/users/${userId}/keys`, { name: 'conformance', read_only: readOnly });
    assert.equal(made.status, 201, made.text);
    run.pool.add(made.headers.get('location') as string);
    const name = readOnly ? 'read-only API key' : 'read-write API key';
    return { name, token: made.body.secret as string, userId, keyId: made.body.id as number, administrator: false };
  };
  const anonymous: Caller = {
    name: 'anonymous',
    token: undefined,
    userId: undefined,
    keyId: undefined,
    administrator: false,
  };
  return {
    administrator,
    user,
    anonymous,
    'read-only API key': await key(true),
    'read-write API key': await key(false),
  };
}

/**
 * Records to read, change and delete, made through the document's own POSTs, parents first, as the administrator and
 * as the user: per collection and vocabulary, until a few are made or the tries run out.
 */
async function makeRecords(run: Run, operations: readonly Operation[], makers: readonly Caller[]): Promise<void> {
  const lists = new Set(listOperations(operations).map(({ list }) => list.template));
  const creates = operations
    .filter((operation) => operation.method === 'post' && lists.has(operation.template))
    .sort((one, other) => signatureOf(one.template).length - signatureOf(other.template).length);
  // Twice round: a body may name a record of a collection made after it (a loan's book); the second round makes
  // only what the first could not.
  const made = new Map<string, number>();
  for (let round = 0; round < 2; round++)
    for (const maker of makers)
      for (const operation of creates) {
        const key = `${maker.name} ${operation.id}`;
        for (let attempt = 0; attempt < MAKING_ATTEMPTS && (made.get(key) ?? 0) < MADE_PER_COLLECTION; attempt++) {
          const answer = await exercise(run, operation, { ...maker, name: `${maker.name} (making records)` });
          if (answer?.status === 201) made.set(key, (made.get(key) ?? 0) + 1);
          if (answer?.status === 401 || answer?.status === 403) break;
        }
      }
}

async function runCaller(domain: Domain, kind: CallerKind): Promise<Run> {
  const api = await startTestServer(domain.options);
  const client = new Client(api.url);
  try {
    // The document as any client gets it: over HTTP, with no token.
    const doc = JSON.parse((await client.send(plainGet('/v1/openapi.json', undefined))).text) as Document;
    const operations = operationsOf(doc);
    const run: Run = {
      failures: [],
      statuses: new Map(),
      operations: operations.length,
      client,
      conformance: conformanceOf(doc),
      pool: new RecordPool(doc),
      memory: { entityTags: new Map(), idempotencyKeys: new Set() },
      random: mulberry32(SEED ^ hashed(`${domain.name} ${kind}`)),
      doc,
    };
    const callers = await callersOf(api, run);
    await listEverything(run, callers.administrator.token as string, operations);
    await makeRecords(run, operations, [callers.administrator, callers.user]);
    const caller = callers[kind];
    // Deletions last, the deepest first: until then every record the run listed may still be there.
    const depth = (operation: Operation): number => signatureOf(operation.template).split('/').length;
    const deletes = operations
      .filter((operation) => operation.method === 'delete')
      .sort((one, other) => depth(other) - depth(one));
    for (const operation of [...operations.filter((operation) => operation.method !== 'delete'), ...deletes])
      for (let i = 0; i < CASES; i++) await exercise(run, operation, caller);
    return run;
  } finally {
    client.close();
    await api.close();
  }
}

/** One failure as a person reads it: who, which operation, the request, the answer, what is wrong. */
function described(failure: Failure): string {
  const { request, answer, operation } = failure;
  const headers = Object.entries(request.headers)
    .filter(([name]) => name !== 'Authorization')
    .map(([name, value]) => `${name}: ${value}`)
    .join('; ');
  return [
    `${failure.caller}: ${operation.id} (${operation.method.toUpperCase()} ${operation.template})`,
    `  request: ${request.method} ${request.target}${headers === '' ? '' : ` [${headers}]`}` +
      (request.body === undefined ? '' : ` ${request.body.slice(0, 400)}`),
    answer === undefined
      ? '  (not sent)'
      : `  answer: ${answer.status} ${answer.mediaType} ${answer.text.slice(0, 400)}`,
    ...failure.problems.slice(0, SHOWN_PROBLEMS).map((problem) => `  - ${problem}`),
    ...(failure.problems.length > SHOWN_PROBLEMS ? [`  (and ${failure.problems.length - SHOWN_PROBLEMS} more)`] : []),
  ].join('\n');
}

/** Failures grouped by operation, status and what was wrong (numbers aside), the first of each shown. */
function report(failures: readonly Failure[]): string {
  const kinds = new Map<string, Failure[]>();
  for (const failure of failures) {
    const what = failure.problems.map((problem) => problem.replace(/\d+/g, '#').slice(0, 80)).join(' | ');
    const kind = `${failure.operation.id} ${failure.answer?.status ?? '-'} ${what}`;
    kinds.set(kind, [...(kinds.get(kind) ?? []), failure]);
  }
  const shown = [...kinds.values()].map((group) => {
    const more = group.length - SHOWN_PER_KIND;
    return (
      group.slice(0, SHOWN_PER_KIND).map(described).join('\n') + (more > 0 ? `\n  (and ${more} more like it)` : '')
    );
  });
  const rerun = `OPENAPI_CONFORMANCE_SEED=${SEED} OPENAPI_CONFORMANCE_CASES=${CASES}`;
  return `${rerun}: ${failures.length} answers break the document, ${kinds.size} kinds:\n${shown.join('\n')}`;
}

/** One set of checks per document (Ajv compiles each schema once), shared by the runs that fetched the same one. */
const checks = new Map<string, Conformance>();

function conformanceOf(doc: Document): Conformance {
  const text = JSON.stringify(doc);
  const found = checks.get(text) ?? new Conformance(doc);
  checks.set(text, found);
  return found;
}

describe('the OpenAPI document against the server', { concurrency: true }, () => {
  for (const domain of DOMAINS) {
    describe(domain.name, { concurrency: true }, () => {
      for (const kind of domain.callers) {
        test(`every operation as ${kind}, ${CASES} requests each: every answer as documented`, async (t) => {
          const run = await runCaller(domain, kind);
          const statuses = [...run.statuses]
            .sort(([one], [other]) => one - other)
            .map(([status, count]) => `${status}×${count}`);
          t.diagnostic(`${kind}: ${run.operations} operations; ${statuses.join(' ')}`);
          if (run.failures.length > 0) assert.fail(report(run.failures));
        });
      }
    });
  }
});
