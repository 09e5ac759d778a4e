// The differential test of the caches (issue 48): two servers over the same records, one keeping list pages,
// representations and compressed forms (`caches: true`), the other building every answer afresh (`caches: false`).
// Seeded random declarations and callers; every read goes to both, and every answer (status, every header but Date,
// body bytes) must be the same. cache-differential.test.ts runs it in memory, the .postgres one on a database.

import { Agent, request } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import type { CollectionDeclaration, PropertySchema, ResourcesDeclaration } from '../src/index.ts';
import type { Audience, Operation } from '../src/resources/definition.ts';
import { mulberry32, tokenFor } from './helpers.ts';

// ---------------------------------------------------------------------------------------
// Settings

export interface DifferentialSettings {
  /** CACHE_SEED: every declaration, caller and request follows from it. */
  readonly seed: number;
  /** CACHE_DECLARATIONS: how many declarations a run tries, each on a new pair of servers. */
  readonly declarations: number;
  /**
   * CACHE_ROUNDS: rounds per declaration. A round is a read sent to both servers; some rounds write first, and then
   * read what the write changes before and after it.
   */
  readonly rounds: number;
}

/** The settings from the environment, else `defaults`. */
export function differentialSettings(defaults: DifferentialSettings): DifferentialSettings {
  const read = (name: string, fallback: number): number => {
    const given = process.env[name];
    if (given === undefined || given === '') return fallback;
    const value = Number(given);
    if (!Number.isSafeInteger(value) || value < 0) throw new Error(`${name} must be a whole number, not ${given}`);
    return value;
  };
  return {
    seed: read('CACHE_SEED', defaults.seed),
    declarations: read('CACHE_DECLARATIONS', defaults.declarations),
    rounds: read('CACHE_ROUNDS', defaults.rounds),
  };
}

/** The seed of declaration `index` of a run (mixed, so that neighbouring seeds give unrelated runs). */
export function declarationSeed(seed: number, index: number): number {
  return Math.floor(mulberry32(seed ^ Math.imul(index + 1, 0x9e3779b1))() * 2 ** 32);
}

// ---------------------------------------------------------------------------------------
// Random choices

type Random = () => number;

function below(random: Random, n: number): number {
  return Math.floor(random() * n);
}

function pick<T>(random: Random, items: readonly T[]): T {
  if (items.length === 0) throw new Error('pick from nothing');
  return items[below(random, items.length)] as T;
}

function shuffled<T>(random: Random, items: readonly T[]): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = below(random, i + 1);
    [copy[i], copy[j]] = [copy[j] as T, copy[i] as T];
  }
  return copy;
}

/** One to `most` distinct items, in a random order. */
function someOf<T>(random: Random, items: readonly T[], most = items.length): T[] {
  return shuffled(random, items).slice(0, 1 + below(random, Math.min(most, items.length)));
}

/** `weights`' key chosen with its weight. */
function weighted<K extends string>(random: Random, weights: Readonly<Record<K, number>>): K {
  const entries = Object.entries(weights) as [K, number][];
  let left = random() * entries.reduce((sum, [, weight]) => sum + weight, 0);
  for (const [key, weight] of entries) {
    left -= weight;
    if (left < 0) return key;
  }
  return (entries[entries.length - 1] as [K, number])[0];
}

// ---------------------------------------------------------------------------------------
// Random declarations

type Language = 'en' | 'pt';
/** A name in each vocabulary. */
type Word = Readonly<Record<Language, string>>;
const word = (en: string, pt = en): Word => ({ en, pt });

const OPERATIONS: readonly Operation[] = ['list', 'read', 'create', 'update', 'delete'];

const TOPICS: readonly { readonly name: Word; readonly singular: Word }[] = [
  { name: word('gardens', 'jardins'), singular: word('garden', 'jardim') },
  { name: word('plants', 'plantas'), singular: word('plant', 'planta') },
  { name: word('notes', 'notas'), singular: word('note', 'nota') },
  { name: word('visits', 'visitas'), singular: word('visit', 'visita') },
  { name: word('tools', 'ferramentas'), singular: word('tool', 'ferramenta') },
  { name: word('recipes', 'receitas'), singular: word('recipe', 'receita') },
];

/** Words of titles and user names, so that `q` finds some records and misses others. */
const WORDS: readonly string[] = ['rosa', 'sol', 'lua', 'mar', 'café', 'pão', 'verde', 'azul'];

type PropertyKind = 'title' | 'rank' | 'day' | 'state' | 'reference';

interface PropertyPlan {
  readonly kind: PropertyKind;
  readonly name: Word;
  /** A reference's collection. */
  readonly target?: string;
  readonly filter: boolean;
  readonly sort: boolean;
  readonly search: boolean;
}

interface CollectionPlan {
  readonly name: string;
  /** Its path segment and singular in each vocabulary (the English ones where it has no Portuguese names). */
  readonly segment: Word;
  readonly singular: Word;
  readonly parent: string | undefined;
  readonly owned: boolean;
  /** Users own its records: owned, under users or under a collection whose records have an owner. */
  readonly hasOwner: boolean;
  readonly access: Readonly<Record<Operation, Audience>>;
  readonly properties: readonly PropertyPlan[];
  /** Whether `names.pt` translates the property names. */
  readonly translatedProperties: boolean;
}

const USERS_SEGMENT = word('users', 'usuarios');
const USER_SINGULAR = word('user', 'usuario');
const KEYS_SEGMENT = word('keys', 'chaves');

/** Two to four collections: top-level, owned, under users or under another; references to users or a top-level one. */
function planCollections(random: Random): CollectionPlan[] {
  const plans: CollectionPlan[] = [];
  for (const topic of shuffled(random, TOPICS).slice(0, 2 + below(random, 3))) {
    const where = random();
    const parent = where < 0.3 ? 'users' : where < 0.6 && plans.length > 0 ? pick(random, plans).name : undefined;
    const owned = parent === undefined && random() < 0.55;
    const hasOwner =
      owned || parent === 'users' || plans.some((plan) => plan.name === parent && plan.hasOwner === true);
    const audiences: Audience[] = ['public', 'user', 'admin', ...(hasOwner ? (['owner', 'owner'] as const) : [])];
    const access = Object.fromEntries(OPERATIONS.map((operation) => [operation, pick(random, audiences)])) as Record<
      Operation,
      Audience
    >;
    // Users make the records of an owned collection, and so own them, unless only admins may.
    if (owned) access.create = pick(random, ['user', 'owner', 'admin'] as const);
    const translatedName = random() < 0.5;
    const translatedProperties = random() < 0.5;
    const pt = (english: string, portuguese: string): Word =>
      word(english, translatedProperties ? portuguese : english);
    const properties: PropertyPlan[] = [
      {
        kind: 'title',
        name: pt('title', 'titulo'),
        filter: random() < 0.25,
        sort: random() < 0.5,
        search: random() < 0.5,
      },
    ];
    if (random() < 0.6)
      properties.push({
        kind: 'rank',
        name: pt('rank', 'posicao'),
        filter: random() < 0.6,
        sort: random() < 0.5,
        search: false,
      });
    if (random() < 0.5)
      properties.push({
        kind: 'day',
        name: pt('day', 'dia'),
        filter: random() < 0.6,
        sort: random() < 0.5,
        search: false,
      });
    if (random() < 0.5)
      properties.push({
        kind: 'state',
        name: pt('state', 'estado'),
        filter: random() < 0.7,
        sort: false,
        search: false,
      });
    const targets = ['users', ...plans.filter((plan) => plan.parent === undefined).map((plan) => plan.name)];
    const referenced = random() < 0.6 ? someOf(random, targets, 2) : [];
    for (const target of referenced) {
      const singular =
        target === 'users' ? USER_SINGULAR : (plans.find((plan) => plan.name === target) as CollectionPlan).singular;
      properties.push({
        kind: 'reference',
        name: pt(`${singular.en}_ref`, `ref_${singular.pt}`),
        target,
        filter: false,
        sort: false,
        search: false,
      });
    }
    plans.push({
      name: topic.name.en,
      segment: translatedName ? topic.name : word(topic.name.en),
      singular: translatedName ? topic.singular : word(topic.singular.en),
      parent,
      owned,
      hasOwner,
      access,
      properties,
      translatedProperties,
    });
  }
  return plans;
}

function schemaOf(property: PropertyPlan): PropertySchema {
  const extensions = {
    ...(property.filter ? { 'x-filter': true } : {}),
    ...(property.sort ? { 'x-sort': true } : {}),
    ...(property.search ? { 'x-search': true } : {}),
  };
  switch (property.kind) {
    case 'title':
      return { type: 'string', minLength: 1, maxLength: 60, ...extensions };
    case 'rank':
      return { type: 'integer', minimum: 0, maximum: 1000, ...extensions };
    case 'day':
      return { type: 'string', format: 'date', ...extensions };
    case 'state':
      return { enum: ['open', 'closed'], default: 'open', ...extensions };
    case 'reference':
      return { type: 'integer', 'x-references': property.target as string };
  }
}

function declarationOf(plans: readonly CollectionPlan[]): ResourcesDeclaration {
  const resources: Record<string, CollectionDeclaration> = {};
  for (const plan of plans) {
    const translatedName = plan.segment.pt !== plan.segment.en;
    const names =
      translatedName || plan.translatedProperties
        ? {
            pt: {
              ...(translatedName ? { collection: plan.segment.pt, singular: plan.singular.pt } : {}),
              ...(plan.translatedProperties
                ? {
                    properties: Object.fromEntries(
                      plan.properties.map((property) => [property.name.en, property.name.pt]),
                    ),
                  }
                : {}),
            },
          }
        : undefined;
    resources[plan.name] = {
      singular: plan.singular.en,
      ...(plan.parent === undefined ? {} : { parent: plan.parent }),
      ...(plan.owned ? { owned: true } : {}),
      access: plan.access,
      properties: Object.fromEntries(plan.properties.map((property) => [property.name.en, schemaOf(property)])),
      required: ['title'],
      ...(names === undefined ? {} : { names }),
    };
  }
  return { resources };
}

// ---------------------------------------------------------------------------------------
// What a list understands, per collection: declared ones, users and their API keys

type ValueKind = 'title' | 'rank' | 'day' | 'state' | 'email' | 'role' | 'boolean' | 'timestamp';

interface Shape {
  readonly collection: string;
  readonly segment: Word;
  readonly parent: string | undefined;
  readonly fields: readonly Word[];
  readonly sortable: readonly Word[];
  readonly filters: readonly { readonly name: Word; readonly kind: ValueKind }[];
  readonly ranges: readonly { readonly name: Word; readonly kind: ValueKind }[];
  readonly searchable: boolean;
  /** What `embed` may name, and the collection each takes its records from. */
  readonly embeds: readonly { readonly name: Word; readonly collection: string }[];
}

const TIMESTAMPS = [word('created_at', 'criado_em'), word('updated_at', 'atualizado_em')];
const TIMESTAMP_RANGES = TIMESTAMPS.map((name) => ({ name, kind: 'timestamp' as const }));

const PARAMETERS = {
  page: word('page', 'pagina'),
  limit: word('limit', 'limite'),
  sort: word('sort', 'ordenar'),
  fields: word('fields', 'campos'),
  embed: word('embed', 'incluir'),
  q: word('q'),
} as const;

function shapesOf(plans: readonly CollectionPlan[]): Map<string, Shape> {
  const shapes = new Map<string, Shape>();
  const singularOf = (collection: string): Word =>
    collection === 'users'
      ? USER_SINGULAR
      : (plans.find((plan) => plan.name === collection) as CollectionPlan).singular;
  const childrenOf = (collection: string): { name: Word; collection: string }[] =>
    plans.filter((plan) => plan.parent === collection).map((plan) => ({ name: plan.segment, collection: plan.name }));
  shapes.set('users', {
    collection: 'users',
    segment: USERS_SEGMENT,
    parent: undefined,
    fields: [word('id'), word('name', 'nome'), word('email'), word('role', 'papel'), ...TIMESTAMPS],
    sortable: [word('name', 'nome'), word('email'), word('role', 'papel')],
    filters: [
      { name: word('email'), kind: 'email' },
      { name: word('role', 'papel'), kind: 'role' },
    ],
    ranges: TIMESTAMP_RANGES,
    searchable: true,
    embeds: [{ name: KEYS_SEGMENT, collection: 'keys' }, ...childrenOf('users')],
  });
  shapes.set('keys', {
    collection: 'keys',
    segment: KEYS_SEGMENT,
    parent: 'users',
    fields: [
      word('id'),
      word('user_id', 'usuario_id'),
      word('name', 'nome'),
      word('expires_at', 'expira_em'),
      word('read_only', 'somente_leitura'),
      word('last_used_at', 'usada_em'),
      ...TIMESTAMPS,
    ],
    sortable: [word('name', 'nome'), word('expires_at', 'expira_em')],
    filters: [{ name: word('read_only', 'somente_leitura'), kind: 'boolean' }],
    ranges: TIMESTAMP_RANGES,
    searchable: false,
    embeds: [],
  });
  for (const plan of plans) {
    const parentField =
      plan.parent === undefined ? [] : [word(`${singularOf(plan.parent).en}_id`, `${singularOf(plan.parent).pt}_id`)];
    const ranged = plan.properties.filter(
      (property) => property.filter && (property.kind === 'rank' || property.kind === 'day'),
    );
    shapes.set(plan.name, {
      collection: plan.name,
      segment: plan.segment,
      parent: plan.parent,
      fields: [
        word('id'),
        ...parentField,
        ...(plan.owned ? [word('owner_id')] : []),
        ...plan.properties.map((property) => property.name),
        ...TIMESTAMPS,
      ],
      sortable: plan.properties.filter((property) => property.sort).map((property) => property.name),
      filters: plan.properties
        .filter((property) => property.filter)
        .map((property) => ({ name: property.name, kind: property.kind as ValueKind })),
      ranges: [
        ...ranged.map((property) => ({ name: property.name, kind: property.kind as ValueKind })),
        ...TIMESTAMP_RANGES,
      ],
      searchable: plan.properties.some((property) => property.search),
      embeds: [
        ...childrenOf(plan.name),
        ...plan.properties
          .filter(
            (property) =>
              property.kind === 'reference' &&
              (property.target === 'users' ||
                plans.some((other) => other.name === property.target && other.parent === undefined)),
          )
          .map((property) => ({ name: property.name, collection: property.target as string })),
      ],
    });
  }
  return shapes;
}

// ---------------------------------------------------------------------------------------
// Answers as they are sent, bytes and all

/** Two servers over the same records: one with `caches: true`, one with `caches: false`. */
export interface ServerPair {
  readonly cached: string;
  readonly uncached: string;
  close(): Promise<void>;
}

interface Answer {
  readonly status: number;
  /** Every header as sent, in order, names in lower case, but those that differ between any two answers. */
  readonly headers: readonly (readonly [string, string])[];
  readonly body: Buffer;
}

/**
 * The header that differs between any two answers, whoever sends them. (X-Request-Id, which error bodies quote too, is
 * the client's own when it sends one: each read sends one.)
 */
const PER_ANSWER_HEADERS: ReadonlySet<string> = new Set(['date']);

function send(
  agent: Agent,
  base: string,
  method: string,
  target: string,
  headers: Readonly<Record<string, string>>,
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const sent = request(`${base}${target}`, { method, headers, agent }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('error', reject);
      response.once('end', () => {
        const pairs: [string, string][] = [];
        for (let i = 0; i < response.rawHeaders.length; i += 2) {
          const name = (response.rawHeaders[i] as string).toLowerCase();
          if (!PER_ANSWER_HEADERS.has(name)) pairs.push([name, response.rawHeaders[i + 1] as string]);
        }
        resolve({ status: response.statusCode ?? 0, headers: pairs, body: Buffer.concat(chunks) });
      });
    });
    sent.once('error', reject);
    sent.end(body);
  });
}

function headerOf(answer: Answer, name: string): string | undefined {
  return answer.headers.find(([each]) => each === name)?.[1];
}

/** An answer as a person reads it: status, headers, and the body decoded and cut short. */
function shown(answer: Answer): string {
  let text: string;
  try {
    const coding = headerOf(answer, 'content-encoding');
    const bytes =
      coding === 'gzip' ? gunzipSync(answer.body) : coding === 'br' ? brotliDecompressSync(answer.body) : answer.body;
    text = bytes.toString('utf8');
  } catch {
    text = `(${answer.body.length} bytes that do not decode)`;
  }
  const headers = answer.headers.map(([name, value]) => `${name}: ${value}`).join('; ');
  return `${answer.status} [${headers}] ${text.length > 1500 ? `${text.slice(0, 1500)}…` : text}`;
}

// ---------------------------------------------------------------------------------------
// The world the callers read: users, their keys and records, as the test made them

interface UserModel {
  readonly id: number;
  readonly label: string;
  readonly email: string;
  readonly token: string;
  role: 'user' | 'admin';
  deleted: boolean;
}

interface KeyModel {
  readonly id: number;
  readonly user: UserModel;
  readonly secret: string;
  readonly readOnly: boolean;
  alive: boolean;
  lastUsedAt: string | undefined;
}

interface RecordModel {
  readonly collection: string;
  /** The ids of its path, its own last. */
  readonly ids: readonly number[];
  alive: boolean;
}

interface Caller {
  readonly label: string;
  /** The user it acts as. */
  readonly user?: UserModel;
  readonly authorization: string | undefined;
  readonly key?: KeyModel;
}

/** A path and query to read, and what decides its answer: collections (its path's, those it embeds) and records. */
interface Target {
  readonly path: string;
  readonly touches: readonly string[];
  /** The records its path names, as `collection/id`. */
  readonly records: readonly string[];
}

/** A read made before, to make again. */
interface Past {
  readonly caller: Caller;
  readonly target: Target;
}

/** What a write changed: a collection, and records (as `collection/id`) that reads naming them show changed. */
interface Change {
  readonly collection: string;
  readonly records: readonly string[];
  /** The reads made just before the write, of the record it changed and the lists under it. */
  readonly primed: readonly Past[];
}

interface Read {
  readonly caller: Caller;
  readonly method: 'GET' | 'HEAD';
  readonly target: string;
  readonly headers: Readonly<Record<string, string>>;
}

type JsonBody = Readonly<Record<string, unknown>>;

/** Who the test's users are: ordinary ones, one made admin and demoted again and again, two deleted on the way. */
const PEOPLE = [
  { label: 'ana', name: 'Ana Rosa', part: 'ordinary' },
  { label: 'bruno', name: 'Bruno Sol', part: 'ordinary' },
  { label: 'carla', name: 'Carla Lua Mar', part: 'ordinary' },
  { label: 'dora', name: 'Dora Café', part: 'switching' },
  { label: 'edu', name: 'Edu Pão', part: 'doomed' },
  { label: 'fabi', name: 'Fabi Verde Azul', part: 'doomed' },
] as const;

const ADMIN_ID = 1;
const NO_SUCH_ID = 987_654;
/** A key's last use is written at most once per this long (src/server/key-use.ts): a use then writes the store. */
const KEY_USE_RESOLUTION_MS = 5 * 60 * 1000;
/** The share of rounds that write before they read. */
const WRITE_SHARE = 0.15;

export type Counts = Map<string, number>;

/** One declaration's run: its servers, its world, and the rounds of requests. */
class Run {
  readonly #random: Random;
  readonly #plans: readonly CollectionPlan[];
  readonly #shapes: ReadonlyMap<string, Shape>;
  readonly #pair: ServerPair;
  readonly #agent: Agent;
  readonly #context: string;
  readonly #users: UserModel[] = [];
  readonly #keys: KeyModel[] = [];
  readonly #records: RecordModel[] = [];
  readonly #callers: Caller[] = [{ label: 'anonymous', authorization: undefined }];
  readonly #titles: string[] = [];
  readonly #timestamps: string[] = [];
  readonly #etags = new Map<string, string[]>();
  readonly #allEtags: string[] = [];
  readonly #recent: Target[] = [];
  readonly #past: Past[] = [];
  readonly #log: string[] = [];
  readonly #counts: Counts;
  #round = 0;

  constructor(
    random: Random,
    plans: readonly CollectionPlan[],
    pair: ServerPair,
    agent: Agent,
    context: string,
    counts: Counts,
  ) {
    this.#counts = counts;
    this.#random = random;
    this.#plans = plans;
    this.#shapes = shapesOf(plans);
    this.#pair = pair;
    this.#agent = agent;
    this.#context = context;
  }

  #count(what: string): void {
    this.#counts.set(what, (this.#counts.get(what) ?? 0) + 1);
  }

  // --- Writes, each through one of the two servers, chosen at random ---------------------

  async #write(
    method: string,
    path: string,
    token: string,
    body?: unknown,
  ): Promise<{ status: number; json: JsonBody }> {
    const base = this.#random() < 0.5 ? this.#pair.cached : this.#pair.uncached;
    const headers: Record<string, string> = { authorization: `Bearer ${token}` };
    const text = body === undefined ? undefined : JSON.stringify(body);
    if (text !== undefined) {
      headers['content-type'] = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
      headers['content-length'] = String(Buffer.byteLength(text));
    }
    const answer = await send(this.#agent, base, method, path, headers, text);
    this.#count('requests');
    this.#count('writes');
    const json: JsonBody = answer.body.length === 0 ? {} : (JSON.parse(answer.body.toString('utf8')) as JsonBody);
    this.#note(`${method} ${path}${text === undefined ? '' : ` ${text}`} → ${answer.status}`);
    return { status: answer.status, json };
  }

  /** A write the test needs to succeed: any other status stops the run, naming it. */
  async #mustWrite(method: string, path: string, token: string, body: unknown, status: number): Promise<JsonBody> {
    const answer = await this.#write(method, path, token, body);
    if (answer.status !== status)
      throw new Error(
        `${this.#context}: ${method} ${path} answered ${answer.status}, not ${status}: ${JSON.stringify(answer.json)}`,
      );
    for (const name of ['created_at', 'updated_at'])
      if (typeof answer.json[name] === 'string') this.#timestamps.push(answer.json[name] as string);
    return answer.json;
  }

  #note(line: string): void {
    this.#log.push(`round ${this.#round}: ${line}`);
    if (this.#log.length > 10) this.#log.shift();
  }

  get #admin(): UserModel {
    return this.#users[0] as UserModel;
  }

  async setUp(): Promise<void> {
    this.#users.push({
      id: ADMIN_ID,
      label: 'admin',
      email: 'admin@example.com',
      token: tokenFor(ADMIN_ID),
      role: 'admin',
      deleted: false,
    });
    for (const person of PEOPLE) {
      const email = `${person.label}@example.com`;
      const created = await this.#mustWrite('POST', '/v1/users', this.#admin.token, { name: person.name, email }, 201);
      const id = created['id'] as number;
      this.#users.push({ id, label: person.label, email, token: tokenFor(id), role: 'user', deleted: false });
    }
    const user = (label: string): UserModel => this.#users.find((each) => each.label === label) as UserModel;
    await this.#setRole(user('dora'), 'admin');
    for (const each of this.#users)
      this.#callers.push({
        label: `${each.label} (user ${each.id})`,
        user: each,
        authorization: `Bearer ${each.token}`,
      });
    this.#callers.push({ label: 'a token no one signed', authorization: 'Bearer not-a-token' });
    for (const [label, readOnly] of [
      ['ana', false],
      ['bruno', true],
      ['admin', true],
      ['dora', false],
      ['edu', false],
      ['carla', true],
    ] as const)
      await this.#createKey(user(label), readOnly);
    for (const plan of this.#plans) {
      const count = 3 + below(this.#random, 4);
      for (let i = 0; i < count; i++) await this.#createRecord(plan, false);
    }
  }

  async #setRole(user: UserModel, role: 'user' | 'admin'): Promise<void> {
    await this.#mustWrite('PATCH', `/v1/users/${user.id}`, this.#admin.token, { role }, 200);
    user.role = role;
  }

  async #createKey(user: UserModel, readOnly: boolean): Promise<void> {
    // Made by its user or by an administrator.
    const token = this.#random() < 0.5 ? user.token : this.#admin.token;
    const created = await this.#mustWrite(
      'POST',
      `/v1/users/${user.id}/keys`,
      token,
      { name: 'k', read_only: readOnly },
      201,
    );
    const key: KeyModel = {
      id: created['id'] as number,
      user,
      secret: created['secret'] as string,
      readOnly,
      alive: true,
      lastUsedAt: undefined,
    };
    this.#keys.push(key);
    const label = `${user.label}'s ${readOnly ? 'read-only ' : ''}API key ${key.id} (user ${user.id})`;
    this.#callers.push({ label, user, authorization: `Bearer ${key.secret}`, key });
    await this.#noteUse(key);
  }

  /**
   * Uses the key and waits for its `last_used_at` to be written (src/server/key-use.ts): for the next five minutes a
   * use writes nothing, so the same read sent to both servers meets the same records.
   */
  async #noteUse(key: KeyModel): Promise<void> {
    const before = key.lastUsedAt;
    await send(this.#agent, this.#pair.cached, 'GET', `/v1/users/${key.user.id}`, {
      authorization: `Bearer ${key.secret}`,
    });
    this.#count('requests');
    const path = `/v1/users/${key.user.id}/keys/${key.id}`;
    for (let attempt = 0; attempt < 500; attempt++) {
      const answer = await send(this.#agent, this.#pair.uncached, 'GET', path, {
        authorization: `Bearer ${this.#admin.token}`,
      });
      this.#count('requests');
      const usedAt = (JSON.parse(answer.body.toString('utf8')) as JsonBody)['last_used_at'];
      if (typeof usedAt === 'string' && usedAt !== before) {
        key.lastUsedAt = usedAt;
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    throw new Error(`${this.#context}: the last use of API key ${key.id} was never written`);
  }

  /** In a run longer than five minutes, a key's next use would write: let that write happen before it is used. */
  async #keepUnwritten(key: KeyModel): Promise<void> {
    if (!key.alive || key.lastUsedAt === undefined) return;
    const due = Date.parse(key.lastUsedAt) + KEY_USE_RESOLUTION_MS;
    if (Date.now() < due - 30_000) return;
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, due - Date.now()) + 100));
    await this.#noteUse(key);
  }

  #alive(collection: string): RecordModel[] {
    return this.#records.filter((record) => record.collection === collection && record.alive);
  }

  #aliveUsers(): UserModel[] {
    return this.#users.filter((user) => !user.deleted);
  }

  #fieldsOf(plan: CollectionPlan, all: boolean): Record<string, unknown> | undefined {
    const body: Record<string, unknown> = {};
    for (const property of plan.properties) {
      if (!all && this.#random() < 0.5) continue;
      if (all && property.kind !== 'title' && this.#random() < 0.3) continue;
      switch (property.kind) {
        case 'title': {
          const title = someOf(this.#random, WORDS, 3).join(' ');
          this.#titles.push(title);
          body[property.name.en] = title;
          break;
        }
        case 'rank':
          body[property.name.en] = below(this.#random, 21);
          break;
        case 'day':
          body[property.name.en] = this.#day();
          break;
        case 'state':
          body[property.name.en] = pick(this.#random, ['open', 'closed']);
          break;
        case 'reference': {
          // Users named by references are never deleted: a deletion would be refused (409).
          const targets =
            property.target === 'users'
              ? this.#users
                  .filter((user) => !PEOPLE.some((person) => person.label === user.label && person.part === 'doomed'))
                  .map((user) => user.id)
              : this.#alive(property.target as string).map((record) => record.ids[0] as number);
          if (targets.length > 0) body[property.name.en] = pick(this.#random, targets);
        }
      }
    }
    return Object.keys(body).length === 0 ? undefined : body;
  }

  #day(): string {
    return `2026-03-0${1 + below(this.#random, 9)}`;
  }

  /** A record of `plan`'s collection, when it has a parent to go under; if `prime`, the reads it changes first. */
  async #createRecord(plan: CollectionPlan, prime = true): Promise<Change | undefined> {
    let parentIds: readonly number[] = [];
    if (plan.parent === 'users') parentIds = [pick(this.#random, this.#aliveUsers()).id];
    else if (plan.parent !== undefined) {
      const parents = this.#alive(plan.parent);
      if (parents.length === 0) return undefined;
      parentIds = pick(this.#random, parents).ids;
    }
    // Records of an owned collection belong to whoever makes them.
    const maker = plan.owned && plan.access.create !== 'admin' ? pick(this.#random, this.#aliveUsers()) : this.#admin;
    const body = this.#fieldsOf(plan, true) ?? {};
    if (body['title'] === undefined) {
      const title = someOf(this.#random, WORDS, 3).join(' ');
      this.#titles.push(title);
      body['title'] = title;
    }
    const primed = !prime
      ? []
      : plan.parent === undefined
        ? await this.#prime([this.#newList(plan.name, [])])
        : await this.#primeAround(plan.parent, parentIds, plan.name);
    const created = await this.#mustWrite('POST', this.#listPath(plan.name, parentIds, 'en'), maker.token, body, 201);
    this.#records.push({ collection: plan.name, ids: [...parentIds, created['id'] as number], alive: true });
    return {
      collection: plan.name,
      records: this.#recordsOf(plan.parent === undefined ? [] : this.#chainOf(plan.parent), parentIds),
      primed,
    };
  }

  /** A write of some kind; answers what it changed, if it did. */
  async #randomWrite(): Promise<Change | undefined> {
    const action = weighted(this.#random, { create: 4, change: 3, delete: 1.5, role: 0.6, key: 0.4, unkey: 0.3 });
    switch (action) {
      case 'create':
        return this.#createRecord(pick(this.#random, this.#plans));
      case 'change': {
        const plan = pick(this.#random, this.#plans);
        const records = this.#alive(plan.name);
        const body = this.#fieldsOf(plan, false);
        if (records.length === 0 || body === undefined) return undefined;
        const record = pick(this.#random, records);
        const primed = await this.#primeAround(plan.name, record.ids);
        await this.#mustWrite('PATCH', this.#itemPath(plan.name, record.ids, 'en'), this.#admin.token, body, 200);
        return { collection: plan.name, records: [`${plan.name}/${record.ids[record.ids.length - 1]}`], primed };
      }
      case 'delete': {
        const plan = pick(this.#random, this.#plans);
        const records = this.#alive(plan.name);
        if (records.length === 0) return undefined;
        const record = pick(this.#random, records);
        const primed = await this.#primeAround(plan.name, record.ids);
        const answer = await this.#write('DELETE', this.#itemPath(plan.name, record.ids, 'en'), this.#admin.token);
        if (answer.status === 204) this.#deleted(plan.name, record.ids);
        else if (answer.status !== 409) throw new Error(`${this.#context}: a deletion answered ${answer.status}`);
        return { collection: plan.name, records: [`${plan.name}/${record.ids[record.ids.length - 1]}`], primed };
      }
      case 'role':
        return this.#switchDora();
      case 'key': {
        const user = pick(this.#random, this.#aliveUsers());
        const primed = await this.#primeAround('users', [user.id], 'keys');
        await this.#createKey(user, this.#random() < 0.5);
        return { collection: 'keys', records: [`users/${user.id}`], primed };
      }
      case 'unkey': {
        const keys = this.#keys.filter((key) => key.alive);
        if (keys.length === 0) return undefined;
        const key = pick(this.#random, keys);
        const primed = await this.#primeAround('keys', [key.user.id, key.id]);
        await this.#mustWrite('DELETE', `/v1/users/${key.user.id}/keys/${key.id}`, this.#admin.token, undefined, 204);
        key.alive = false;
        return { collection: 'keys', records: [`users/${key.user.id}`, `keys/${key.id}`], primed };
      }
    }
  }

  async #deleteUser(label: string): Promise<Change> {
    const user = this.#users.find((each) => each.label === label) as UserModel;
    const primed = await this.#primeAround('users', [user.id]);
    await this.#mustWrite('DELETE', `/v1/users/${user.id}`, this.#admin.token, undefined, 204);
    user.deleted = true;
    this.#deleted('users', [user.id]);
    return { collection: 'users', records: [`users/${user.id}`], primed };
  }

  /** Dora made an administrator, or an ordinary user again. */
  async #switchDora(): Promise<Change> {
    const dora = this.#users.find((user) => user.label === 'dora') as UserModel;
    const primed = await this.#primeAround('users', [dora.id]);
    this.#note(`dora ${dora.role === 'admin' ? 'demoted' : 'promoted'}`);
    await this.#setRole(dora, dora.role === 'admin' ? 'user' : 'admin');
    return { collection: 'users', records: [`users/${dora.id}`], primed };
  }

  /**
   * Before a write to a record: the reads whose answers it may change, each by some caller or an administrator (what
   * the cached server then keeps), to be read again by the same callers once the write is done. The record's item, the
   * lists under it, the list that holds it, its parent's item and list embedding its collection, and the lists of
   * collections that reference it, embedding it. `embedAlso`: a collection to embed in the record's own item and list
   * (the one a record is about to be made in, under this one).
   */
  async #primeAround(collection: string, ids: readonly number[], embedAlso?: string): Promise<Past[]> {
    const random = this.#random;
    const language: Language = random() < 0.35 ? 'pt' : 'en';
    const targets: Target[] = [];
    const item = (at: string, atIds: readonly number[], embed?: string): void => {
      const touches = [...this.#chainOf(at)];
      const query = this.#itemQuery(this.#shapes.get(at) as Shape, language, touches, embed);
      const records = this.#recordsOf(this.#chainOf(at), atIds);
      targets.push({ path: this.#itemPath(at, atIds, language) + query, touches, records });
    };
    const list = (of: string, parentIds: readonly number[], embed?: string): void => {
      const touches = [...this.#chainOf(of)];
      const query = this.#listQuery(this.#shapes.get(of) as Shape, language, touches, embed);
      const records = this.#recordsOf(this.#chainOf(of), parentIds);
      targets.push({ path: this.#listPath(of, parentIds, language) + query, touches, records });
    };
    item(collection, ids, embedAlso);
    for (const child of this.#childrenOf(collection)) list(child, ids);
    list(collection, ids.slice(0, -1), embedAlso);
    const parent = (this.#shapes.get(collection) as Shape).parent;
    if (parent !== undefined) {
      item(parent, ids.slice(0, -1), collection);
      list(parent, ids.slice(0, -2), collection);
    }
    for (const plan of this.#plans)
      if (plan.properties.some((property) => property.kind === 'reference' && property.target === collection))
        list(plan.name, this.#parentIdsOf(plan.name), collection);
    return this.#prime(targets);
  }

  /** Each target read by a caller, half the time an administrator. */
  async #prime(targets: readonly Target[]): Promise<Past[]> {
    const administrators = this.#callers.filter(
      (caller) => caller.user?.role === 'admin' && !caller.user.deleted && caller.key?.alive !== false,
    );
    const primed: Past[] = [];
    for (const target of targets) {
      const caller = pick(this.#random, this.#random() < 0.5 ? administrators : this.#callers);
      this.#count('read before a write');
      await this.#compare(this.#read(caller, target));
      primed.push({ caller, target });
    }
    return primed;
  }

  /** The collections nested right under `collection`. */
  #childrenOf(collection: string): string[] {
    const declared = this.#plans.filter((plan) => plan.parent === collection).map((plan) => plan.name);
    return collection === 'users' ? ['keys', ...declared] : declared;
  }

  /** A record is gone, and everything under it (keys included). */
  #deleted(collection: string, ids: readonly number[]): void {
    const depth = ids.length - 1;
    for (const record of this.#records) {
      const chain = this.#chainOf(record.collection);
      if (chain[depth] === collection && ids.every((id, i) => record.ids[i] === id)) record.alive = false;
    }
    if (collection === 'users') for (const key of this.#keys) if (key.user.id === ids[0]) key.alive = false;
  }

  // --- Paths --------------------------------------------------------------------------

  #chainOf(collection: string): string[] {
    if (collection === 'users') return ['users'];
    if (collection === 'keys') return ['users', 'keys'];
    const plan = this.#plans.find((each) => each.name === collection) as CollectionPlan;
    return [...(plan.parent === undefined ? [] : this.#chainOf(plan.parent)), collection];
  }

  #segmentOf(collection: string, language: Language): string {
    return (this.#shapes.get(collection) as Shape).segment[language];
  }

  #itemPath(collection: string, ids: readonly number[], language: Language): string {
    return `/v1/${this.#chainOf(collection)
      .map((each, i) => `${this.#segmentOf(each, language)}/${ids[i]}`)
      .join('/')}`;
  }

  #listPath(collection: string, parentIds: readonly number[], language: Language): string {
    const chain = this.#chainOf(collection);
    const above = chain.slice(0, -1).map((each, i) => `${this.#segmentOf(each, language)}/${parentIds[i]}`);
    return `/v1/${[...above, this.#segmentOf(collection, language)].join('/')}`;
  }

  // --- Reads --------------------------------------------------------------------------

  /** A record of `collection` to address: most often one that exists, sometimes a deleted one or none at all. */
  #someRecordIds(collection: string): readonly number[] {
    if (collection === 'users') {
      const chosen = this.#random() < 0.08 ? NO_SUCH_ID : pick(this.#random, this.#users).id;
      return [chosen];
    }
    if (collection === 'keys') {
      const key = this.#keys.length === 0 || this.#random() < 0.08 ? undefined : pick(this.#random, this.#keys);
      return key === undefined ? [pick(this.#random, this.#users).id, NO_SUCH_ID] : [key.user.id, key.id];
    }
    const alive = this.#alive(collection);
    const all = this.#records.filter((record) => record.collection === collection);
    const chosen =
      alive.length > 0 && this.#random() < 0.85
        ? pick(this.#random, alive)
        : all.length > 0
          ? pick(this.#random, all)
          : undefined;
    const parentIds = this.#parentIdsOf(collection);
    if (chosen === undefined || this.#random() < 0.06) return [...parentIds, NO_SUCH_ID];
    // Now and then under another parent than its own: a 404 (or a 403 for someone else's).
    if (parentIds.length > 0 && this.#random() < 0.06)
      return [...parentIds, chosen.ids[chosen.ids.length - 1] as number];
    return chosen.ids;
  }

  #parentIdsOf(collection: string): readonly number[] {
    const parent = (this.#shapes.get(collection) as Shape).parent;
    return parent === undefined ? [] : this.#someRecordIds(parent);
  }

  #value(kind: ValueKind): string {
    const random = this.#random;
    switch (kind) {
      case 'title':
        return this.#titles.length > 0 && random() < 0.7 ? pick(random, this.#titles) : pick(random, WORDS);
      case 'rank':
        return String(below(random, 21));
      case 'day':
        return this.#day();
      case 'state':
        return pick(random, ['open', 'closed']);
      case 'email':
        return pick(random, this.#users).email;
      case 'role':
        return pick(random, ['user', 'admin']);
      case 'boolean':
        return pick(random, ['true', 'false']);
      case 'timestamp':
        return this.#timestamps.length > 0 && random() < 0.8
          ? pick(random, this.#timestamps)
          : pick(random, ['2020-01-01', '2099-01-01T00:00:00Z']);
    }
  }

  #query(parts: string[]): string {
    if (parts.length === 0) return '';
    return `?${shuffled(this.#random, parts).join('&')}`;
  }

  /** A list's query string; the collections it embeds are added to `touches`. */
  #listQuery(shape: Shape, language: Language, touches: string[], embedAlso?: string): string {
    const random = this.#random;
    const parts: string[] = [];
    const add = (name: string, value: string): void => {
      parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(value).replace(/%2C/g, ',')}`);
    };
    if (random() < 0.2) add(PARAMETERS.page[language], String(1 + below(random, 3)));
    if (random() < 0.45) add(PARAMETERS.limit[language], String(1 + below(random, 5)));
    if (shape.sortable.length > 0 && random() < 0.35)
      add(
        PARAMETERS.sort[language],
        someOf(random, shape.sortable, 2)
          .map((name) => `${random() < 0.5 ? '-' : ''}${name[language]}`)
          .join(','),
      );
    for (const filter of shape.filters) if (random() < 0.15) add(filter.name[language], this.#value(filter.kind));
    for (const range of shape.ranges)
      if (random() < 0.1)
        add(`${range.name[language]}[${pick(random, ['gt', 'gte', 'lt', 'lte'])}]`, this.#value(range.kind));
    if (shape.searchable && random() < 0.2) add(PARAMETERS.q[language], someOf(random, WORDS, 2).join(' '));
    if (random() < 0.25)
      add(
        PARAMETERS.fields[language],
        someOf(random, shape.fields, 3)
          .map((name) => name[language])
          .join(','),
      );
    if (shape.embeds.length > 0 && (random() < 0.45 || embedAlso !== undefined))
      add(PARAMETERS.embed[language], this.#embed(shape, language, touches, embedAlso));
    // A mistake now and then: an unknown parameter, or one given twice (400 on both).
    if (random() < 0.03) add('colour', 'blue');
    if (parts.length > 0 && random() < 0.02) parts.push(parts[0] as string);
    return this.#query(parts);
  }

  #itemQuery(shape: Shape, language: Language, touches: string[], embedAlso?: string): string {
    const random = this.#random;
    const parts: string[] = [];
    if (random() < 0.3)
      parts.push(
        `${PARAMETERS.fields[language]}=${someOf(random, shape.fields, 3)
          .map((name) => name[language])
          .join(',')}`,
      );
    if (shape.embeds.length > 0 && (random() < 0.5 || embedAlso !== undefined))
      parts.push(`${PARAMETERS.embed[language]}=${this.#embed(shape, language, touches, embedAlso)}`);
    return this.#query(parts);
  }

  /** Some of what the shape may embed (`also` among them, when it may embed that collection). */
  #embed(shape: Shape, language: Language, touches: string[], also?: string): string {
    const chosen = someOf(this.#random, shape.embeds);
    const wanted = shape.embeds.find((embed) => embed.collection === also);
    if (wanted !== undefined && !chosen.includes(wanted)) chosen.push(wanted);
    touches.push(...chosen.map((embed) => embed.collection));
    return chosen.map((embed) => embed.name[language]).join(',');
  }

  /** A list of `collection` under these parents, with a random query. */
  #newList(collection: string, parentIds: readonly number[]): Target {
    const language: Language = this.#random() < 0.35 ? 'pt' : 'en';
    const chain = this.#chainOf(collection);
    const touches = [...chain];
    const query = this.#listQuery(this.#shapes.get(collection) as Shape, language, touches);
    return {
      path: this.#listPath(collection, parentIds, language) + query,
      touches,
      records: this.#recordsOf(chain, parentIds),
    };
  }

  /** A target to read, and the collections whose records decide its answer. */
  #newTarget(): Target {
    const language: Language = this.#random() < 0.35 ? 'pt' : 'en';
    const kind = weighted(this.#random, {
      list: 45,
      item: 30,
      users: 6,
      user: 8,
      keys: 6,
      key: 2,
      index: 1,
      openapi: 0.2,
    });
    if (kind === 'index') return { path: '/v1', touches: [], records: [] };
    if (kind === 'openapi') return { path: '/v1/openapi.json', touches: [], records: [] };
    const collection =
      kind === 'list' || kind === 'item'
        ? pick(this.#random, this.#plans).name
        : kind === 'users' || kind === 'user'
          ? 'users'
          : 'keys';
    const shape = this.#shapes.get(collection) as Shape;
    const chain = this.#chainOf(collection);
    const touches = [...chain];
    const list = kind === 'list' || kind === 'users' || kind === 'keys';
    const ids = list ? this.#parentIdsOf(collection) : this.#someRecordIds(collection);
    const path = list
      ? this.#listPath(collection, ids, language) + this.#listQuery(shape, language, touches)
      : this.#itemPath(collection, ids, language) + this.#itemQuery(shape, language, touches);
    return { path, touches, records: this.#recordsOf(chain, ids) };
  }

  /** An If-None-Match: a tag some caller was given for this target (the old 304 leak), `*`, another's, a list. */
  #condition(target: string): string {
    const random = this.#random;
    const same = this.#etags.get(target) ?? [];
    const tag = (): string => {
      const chosen =
        same.length > 0 && random() < 0.75
          ? pick(random, same)
          : this.#allEtags.length > 0
            ? pick(random, this.#allEtags)
            : '"none"';
      // Weak comparison (RFC 9110 §13.1.2): W/"x" matches "x", and the other way round.
      if (random() < 0.2) return chosen.startsWith('W/') ? chosen.slice(2) : `W/${chosen}`;
      return chosen;
    };
    switch (weighted(random, { one: 75, star: 10, list: 15 })) {
      case 'one':
        return tag();
      case 'star':
        return '*';
      case 'list':
        return `"stale", ${tag()}`;
    }
  }

  /**
   * A read: now and then one a caller made before (a write since may have changed what it shows: a page kept too long
   * shows then), else any caller on a target read lately (another caller's kept page would show), or a new target.
   */
  #randomRead(): Read {
    const random = this.#random;
    if (this.#past.length > 0 && random() < 0.25) {
      const earlier = pick(random, this.#past);
      this.#count('read again later');
      return this.#read(earlier.caller, earlier.target);
    }
    const caller = pick(random, this.#callers);
    let target: Target;
    if (this.#recent.length > 0 && random() < 0.45) target = pick(random, this.#recent);
    else {
      target = this.#newTarget();
      this.#recent.push(target);
      if (this.#recent.length > 40) this.#recent.shift();
    }
    this.#past.push({ caller, target });
    if (this.#past.length > 80) this.#past.shift();
    return this.#read(caller, target);
  }

  /** The caller's read of the target, with a random method, codings and condition. */
  #read(caller: Caller, target: Target): Read {
    const random = this.#random;
    const headers: Record<string, string> = { 'x-request-id': `round-${this.#round}` };
    if (caller.authorization !== undefined) headers['authorization'] = caller.authorization;
    const coding = weighted(random, { none: 40, gzip: 25, br: 20, both: 10, compressedOnly: 5 });
    if (coding !== 'none')
      headers['accept-encoding'] = { gzip: 'gzip', br: 'br', both: 'gzip, br', compressedOnly: 'identity;q=0, gzip' }[
        coding
      ];
    if (random() < 0.3) headers['if-none-match'] = this.#condition(target.path);
    return { caller, method: random() < 0.2 ? 'HEAD' : 'GET', target: target.path, headers };
  }

  /**
   * After a write: a few earlier reads whose answers it decides, by the same callers, again; first those whose path
   * names a record it changed (a list under a deleted parent), then any of the collection it changed.
   */
  async #readAgainAfter(change: Change): Promise<void> {
    const named = this.#past.filter((earlier) => earlier.target.records.some((key) => change.records.includes(key)));
    const touched = this.#past.filter((earlier) => earlier.target.touches.includes(change.collection));
    for (const earlier of [
      ...change.primed,
      ...shuffled(this.#random, named).slice(0, 2),
      ...shuffled(this.#random, touched).slice(0, 2),
    ]) {
      this.#count('read again after a write');
      await this.#compare(this.#read(earlier.caller, earlier.target));
    }
  }

  /** `collection/id` of each record a path names, from the collections of its chain and its ids. */
  #recordsOf(chain: readonly string[], ids: readonly number[]): string[] {
    return ids.map((id, i) => `${chain[i]}/${id}`);
  }

  /** Sends the read to both servers in a random order, sometimes again to the cached one: the answers must agree. */
  async #compare(read: Read): Promise<void> {
    if (read.caller.key !== undefined) await this.#keepUnwritten(read.caller.key);
    const ask = async (base: string): Promise<Answer> => {
      this.#count('requests');
      return send(this.#agent, base, read.method, read.target, read.headers);
    };
    const cachedFirst = this.#random() < 0.5;
    let cached: Answer;
    let uncached: Answer;
    if (cachedFirst) {
      cached = await ask(this.#pair.cached);
      uncached = await ask(this.#pair.uncached);
    } else {
      uncached = await ask(this.#pair.uncached);
      cached = await ask(this.#pair.cached);
    }
    this.#check(read, cached, uncached, cachedFirst ? 'asked first' : 'asked after the one without');
    if (this.#random() < 0.35) {
      this.#count('asked again');
      this.#check(read, await ask(this.#pair.cached), uncached, 'asked again');
    }
    this.#count(`status ${uncached.status}`);
    this.#count(read.method);
    const target = read.target;
    if (/[?&](embed|incluir)=/.test(target)) this.#count('embed');
    if (/[?&](fields|campos)=/.test(target)) this.#count('fields');
    if (/[?&]q=/.test(target)) this.#count('q');
    if (target.includes('%5B')) this.#count('range');
    if (read.headers['if-none-match'] !== undefined) this.#count('If-None-Match');
    if (read.caller.key !== undefined) this.#count('API key');
    const etag = headerOf(uncached, 'etag');
    if (etag !== undefined) {
      const known = this.#etags.get(target) ?? [];
      if (!known.includes(etag)) {
        known.push(etag);
        this.#etags.set(target, known.slice(-8));
        this.#allEtags.push(etag);
        if (this.#allEtags.length > 200) this.#allEtags.shift();
      }
    }
  }

  #check(read: Read, cached: Answer, uncached: Answer, when: string): void {
    this.#count('compared');
    const differences = [
      ...(cached.status === uncached.status ? [] : ['status']),
      ...(JSON.stringify(cached.headers) === JSON.stringify(uncached.headers) ? [] : ['headers']),
      ...(cached.body.equals(uncached.body) ? [] : ['body']),
    ];
    if (differences.length === 0) return;
    const users = this.#users.map((user) => `${user.label} ${user.deleted ? 'deleted' : user.role}`).join(', ');
    const headers = Object.entries(read.headers)
      .filter(([name]) => name !== 'authorization' && name !== 'x-request-id')
      .map(([name, value]) => `${name}: ${value}`)
      .join('; ');
    throw new Error(
      [
        `the server with caches answered otherwise than the one without (${differences.join(', ')} differ)`,
        `  where: ${this.#context}, round ${this.#round}`,
        `  caller: ${read.caller.label}`,
        `  request: ${read.method} ${read.target}${headers === '' ? '' : ` [${headers}]`}`,
        `  with caches (${when}): ${shown(cached)}`,
        `  without caches: ${shown(uncached)}`,
        '  the last writes and events:',
        ...this.#log.map((line) => `    ${line}`),
        `  the users now: ${users}`,
      ].join('\n'),
    );
  }

  /** A round: now and then a write (and at set rounds a demotion or a deletion of a user), then a read. */
  async round(round: number, rounds: number): Promise<void> {
    this.#round = round;
    if (round === Math.floor(rounds / 3)) await this.#readAgainAfter(await this.#deleteUser('edu'));
    if (round === Math.floor((rounds * 2) / 3)) await this.#readAgainAfter(await this.#deleteUser('fabi'));
    if (round > 0 && round % Math.max(1, Math.floor(rounds / 4)) === 0)
      await this.#readAgainAfter(await this.#switchDora());
    if (this.#random() < WRITE_SHARE) {
      const changed = await this.#randomWrite();
      if (changed !== undefined) await this.#readAgainAfter(changed);
    }
    await this.#compare(this.#randomRead());
  }
}

/**
 * Runs declaration `index` of the settings' seed: its pair of servers from `startPair`, its world, its rounds; throws
 * at the first answer the two servers disagree on. Adds what it met to `counts` (statuses, kinds of request).
 */
export async function runDeclaration(
  settings: DifferentialSettings,
  index: number,
  store: string,
  startPair: (declaration: ResourcesDeclaration) => Promise<ServerPair>,
  counts: Counts,
): Promise<void> {
  const random = mulberry32(declarationSeed(settings.seed, index));
  const plans = planCollections(random);
  const declaration = declarationOf(plans);
  const context =
    `CACHE_SEED=${settings.seed} CACHE_DECLARATIONS=${index + 1} CACHE_ROUNDS=${settings.rounds} (declaration ` +
    `${index + 1}, ${store}: ${JSON.stringify(declaration)})`;
  const pair = await startPair(declaration);
  const agent = new Agent({ keepAlive: true });
  try {
    const run = new Run(random, plans, pair, agent, context, counts);
    await run.setUp();
    for (let round = 0; round < settings.rounds; round++) await run.round(round, settings.rounds);
  } finally {
    agent.destroy();
    await pair.close();
  }
}
