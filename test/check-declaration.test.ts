// Checking a resource declaration (src/declarations/check-declaration.ts): the shipped
// example domain is well formed, and so is a small library (authors, their books, loans);
// each kind of mistake is reported at its JSON pointer, every one at once. A pure unit:
// no server (test/declared-*.test.ts serve declarations).

import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { MAX_PATTERN_STATES } from '../src/patterns/linear-pattern.ts';
import type { DeclarationProblem } from '../src/declarations/check-declaration.ts';
import {
  checkDeclaration,
  MAX_COLLECTIONS,
  MAX_DECLARATION_DEPTH,
  MAX_DECLARATION_VALUES,
  MAX_NESTING,
  MAX_PROPERTIES,
} from '../src/declarations/check-declaration.ts';
import { MAX_EXAMPLE_LENGTH } from '../src/declarations/check-schema.ts';
import { compileRule } from '../src/declarations/compile-rule.ts';
import { BOUND_KEYWORDS, KEYWORDS, type KeywordValue } from '../src/declarations/keywords.ts';
import { MAX_PATTERN_GROUP_DEPTH, MAX_PATTERN_LENGTH, patternProblem } from '../src/patterns/pattern-problem.ts';
import type { ResourcesDeclaration } from '../src/declarations/declaration.ts';
import {
  compileObject,
  DeclarationError,
  loadDeclarationFile,
  MAX_DECLARATION_BYTES,
} from '../src/declarations/load-declaration.ts';
import { RESERVED_NAMES } from '../src/declarations/reserved-names.ts';
import { NAME } from '../src/resources/names.ts';
import { routeTable } from '../src/routing/route-table.ts';
import { temporaryDirectory } from './helpers.ts';
import { LIBRARY } from './declared-domains.ts';
import { REPOSITORY_ROOT } from './repository.ts';

const EXAMPLE_DOMAIN = join(REPOSITORY_ROOT, 'data', 'example', 'resources.json');

/** The library (test/library-declaration.ts), as a fresh object each mistake may change. */
function library(): Record<string, any> {
  return structuredClone(LIBRARY);
}

/** A mistake made to the library, and the one problem it must cause. */
interface Mistake {
  readonly name: string;
  readonly change: (declaration: Record<string, any>) => void;
  readonly pointer: string;
  readonly message: RegExp;
}

const MISTAKES: readonly Mistake[] = [
  {
    name: 'a misspelt keyword',
    change: (d) => (d.resources.books.properties.title.maxLenght = 300),
    pointer: '/resources/books/properties/title/maxLenght',
    message: /^unknown keyword "maxLenght"$/,
  },
  {
    name: 'a pattern that is not a regular expression',
    change: (d) => (d.resources.books.properties.isbn.pattern = '^[0-9{13}$('),
    pointer: '/resources/books/properties/isbn/pattern',
    message: /^not a valid regular expression$/,
  },
  {
    name: 'a pattern only a backtracking engine runs',
    change: (d) => (d.resources.authors.properties.country.pattern = '^([A-Z])\\1$'),
    pointer: '/resources/authors/properties/country/pattern',
    message: /^uses a back-reference, which cannot be matched in linear time$/,
  },
  {
    name: 'a reserved collection name',
    change: (d) => (d.resources.tokens = { ...d.resources.authors, names: undefined }),
    pointer: '/resources/tokens',
    message: /reserved/,
  },
  {
    name: 'a looser access to users',
    change: (d) => (d.resources.users = { singular: 'user', access: { list: 'user' } }),
    pointer: '/resources/users/access/list',
    message: /only be made stricter than "admin"/,
  },
  {
    name: 'owner access on a collection nobody owns',
    change: (d) => (d.resources.authors.access.update = 'owner'),
    pointer: '/resources/authors/access/update',
    message: /"owner" needs records with an owner/,
  },
  {
    name: 'a reserved name in a vocabulary',
    change: (d) => (d.resources.authors.names.pt.collection = 'tokens'),
    pointer: '/resources/authors/names/pt/collection',
    message: /^"tokens" is reserved: plainrest serves \/v1\/tokens itself \(its token endpoint\)$/,
  },
  {
    name: "the built-in users' name in a vocabulary",
    change: (d) => (d.resources.authors.names.pt.collection = 'usuarios'),
    pointer: '/resources/authors',
    message: /^its path segment "usuarios" is also users's$/,
  },
  {
    name: "the built-in keys' name",
    change: (d) => (d.resources.keys = { ...d.resources.authors, names: undefined }),
    pointer: '/resources/keys',
    message: /^"keys" is reserved: it holds users' API keys \(\/v1\/users\/\{id\}\/keys\)$/,
  },
  {
    name: "the built-in keys' path under users in a vocabulary",
    change: (d) => {
      d.resources.notes = { singular: 'note', parent: 'users', properties: { text: { type: 'string' } } };
      d.resources.notes.names = { pt: { collection: 'chaves' } };
    },
    pointer: '/resources/notes',
    message: /^its path segment "chaves" is also keys's$/,
  },
  {
    name: "a property where users' password hash is kept",
    change: (d) => (d.resources.users = { singular: 'user', properties: { password_hash: { type: 'string' } } }),
    pointer: '/resources/users/properties/password_hash',
    message: /^plainrest keeps a password's hash in "password_hash" itself$/,
  },
  {
    name: 'a filter named like a list parameter',
    change: (d) => (d.resources.authors.properties.limit = { type: 'integer', 'x-filter': true }),
    pointer: '/resources/authors/properties/limit/x-filter',
    message: /^"limit" is also a list's query parameter, which a filter by it would be taken for; rename the property$/,
  },
  {
    name: 'two collections sharing a path segment in a vocabulary',
    change: (d) => (d.resources.loans.names = { pt: { collection: 'autores' } }),
    pointer: '/resources/loans',
    message: /path segment "autores" is also authors's/,
  },
  {
    name: 'a collection name with capitals',
    change: (d) => (d.resources.Authors = d.resources.loans),
    pointer: '/resources/Authors',
    message: /not a collection name/,
  },
  {
    name: 'a declared id',
    change: (d) => (d.resources.authors.properties.id = { type: 'integer' }),
    pointer: '/resources/authors/properties/id',
    message: /cannot be declared/,
  },
  {
    name: 'a declared created_at',
    change: (d) => (d.resources.authors.properties.created_at = { type: 'string' }),
    pointer: '/resources/authors/properties/created_at',
    message: /cannot be declared/,
  },
  {
    name: 'a parent that is not declared',
    change: (d) => (d.resources.books.parent = 'writers'),
    pointer: '/resources/books/parent',
    message: /names no declared collection \("writers"\)/,
  },
  {
    name: 'a reference to an unknown collection',
    change: (d) => (d.resources.loans.properties.book_id['x-references'] = 'novels'),
    pointer: '/resources/loans/properties/book_id/x-references',
    message: /names no declared collection/,
  },
  {
    name: 'a transition to a state outside the enum',
    change: (d) => (d.resources.books.properties.status['x-transitions'].draft = ['printed']),
    pointer: '/resources/books/properties/status/x-transitions/draft/0',
    message: /"printed" is not one of the enum's states/,
  },
  {
    name: 'transitions on a property without an enum',
    change: (d) => (d.resources.books.properties.title['x-transitions'] = {}),
    pointer: '/resources/books/properties/title/x-transitions',
    message: /applies to a property with an "enum"/,
  },
  {
    name: 'a required property that is not declared',
    change: (d) => d.resources.books.required.push('subtitle'),
    pointer: '/resources/books/required/3',
    message: /names no declared property \("subtitle"\)/,
  },
  {
    name: 'an unknown type',
    change: (d) => (d.resources.books.properties.price.type = 'decimal'),
    pointer: '/resources/books/properties/price/type',
    message: /must be one of string, integer/,
  },
  {
    name: 'an unknown format',
    change: (d) => (d.resources.loans.properties.due.format = 'day'),
    pointer: '/resources/loans/properties/due/format',
    message: /must be one of email, date/,
  },
  {
    name: 'a default outside the enum',
    change: (d) => (d.resources.books.properties.status.default = 'lost'),
    pointer: '/resources/books/properties/status/default',
    message: /does not fit the schema/,
  },
  {
    name: 'an unknown access operation',
    change: (d) => (d.resources.authors.access.remove = 'admin'),
    pointer: '/resources/authors/access/remove',
    message: /unknown operation/,
  },
  {
    name: 'an unknown audience',
    change: (d) => (d.resources.authors.access.list = 'everyone'),
    pointer: '/resources/authors/access/list',
    message: /public, user, owner, admin/,
  },
  {
    name: 'a missing singular',
    change: (d) => delete d.resources.loans.singular,
    pointer: '/resources/loans',
    message: /needs "singular"/,
  },
  {
    name: 'x-owner-may-set without x-admin-only',
    change: (d) => delete d.resources.loans.properties.state['x-admin-only'],
    pointer: '/resources/loans/properties/state/x-owner-may-set',
    message: /goes with "x-admin-only": true/,
  },
  {
    name: 'an initial state outside the enum',
    change: (d) => (d.resources.books.properties.status['x-initial'] = ['draft', 'printed']),
    pointer: '/resources/books/properties/status/x-initial/1',
    message: /^"printed" is not one of the enum's values$/,
  },
  {
    name: 'initial states on a property without an enum',
    change: (d) => (d.resources.books.properties.title['x-initial'] = ['Dune']),
    pointer: '/resources/books/properties/title/x-initial',
    message: /^applies to a property with an "enum"$/,
  },
  {
    name: 'no initial state',
    change: (d) => (d.resources.books.properties.status['x-initial'] = []),
    pointer: '/resources/books/properties/status/x-initial',
    message: /^must be a non-empty array of values$/,
  },
  {
    name: 'a default a create may not give (outside x-initial)',
    change: (d) => (d.resources.books.properties.status['x-initial'] = ['published']),
    pointer: '/resources/books/properties/status/default',
    message: /^is not one of x-initial's values$/,
  },
  {
    name: 'a vocabulary naming an undeclared property',
    change: (d) => (d.resources.authors.names.pt.properties.born = 'nascido'),
    pointer: '/resources/authors/names/pt/properties/born',
    message: /names no declared property/,
  },
  {
    name: 'a language that is not a code',
    change: (d) => (d.resources.authors.names.portuguese = d.resources.authors.names.pt),
    pointer: '/resources/authors/names/portuguese',
    message: /two-letter language code/,
  },
  {
    name: 'an array without items',
    change: (d) => (d.resources.books.properties.tags = { type: 'array' }),
    pointer: '/resources/books/properties/tags',
    message: /an array needs "items"/,
  },
  {
    name: 'x-filter inside an array',
    change: (d) => (d.resources.books.properties.tags = { type: 'array', items: { type: 'string', 'x-filter': true } }),
    pointer: '/resources/books/properties/tags/items/x-filter',
    message: /top-level property only/,
  },
  {
    name: 'x-search on a number',
    change: (d) => (d.resources.books.properties.price['x-search'] = true),
    pointer: '/resources/books/properties/price/x-search',
    message: /applies to a string property that is read/,
  },
  {
    name: 'x-search not true or false',
    change: (d) => (d.resources.books.properties.title['x-search'] = 'yes'),
    pointer: '/resources/books/properties/title/x-search',
    message: /must be true or false/,
  },
  {
    name: 'retyping a built-in user field',
    change: (d) => (d.resources.users = { singular: 'user', properties: { email: { type: 'integer' } } }),
    pointer: '/resources/users/properties/email/type',
    message: /cannot be retyped/,
  },
  {
    name: 'an unknown collection member',
    change: (d) => (d.resources.books.acess = {}),
    pointer: '/resources/books/acess',
    message: /^unknown member$/,
  },
];

describe('declarations that are well formed', () => {
  test('the example domain shipped in data/example/resources.json', async () => {
    assert.deepEqual(checkDeclaration(JSON.parse(await readFile(EXAMPLE_DOMAIN, 'utf8'))), []);
  });

  test('a library (authors, their books, loans)', () => {
    assert.deepEqual(checkDeclaration(library()), []);
  });

  test('users are always served: a collection nests under them, or refers to them, without declaring them', () => {
    const notes = {
      resources: {
        notes: {
          singular: 'note',
          parent: 'users',
          properties: { text: { type: 'string' }, reviewer_id: { type: 'integer', 'x-references': 'users' } },
        },
      },
    };
    assert.deepEqual(checkDeclaration(notes), []);
  });

  test('x- keywords plainrest does not know pass, for the OpenAPI document', () => {
    const declaration = library();
    declaration.resources.books.properties.title['x-display-width'] = 40;
    declaration.resources.books['x-group'] = 'catalogue';
    assert.deepEqual(checkDeclaration(declaration), []);
  });
});

describe('each mistake is one problem at its JSON pointer', () => {
  for (const mistake of MISTAKES) {
    test(mistake.name, () => {
      const declaration = library();
      mistake.change(declaration);
      const problems = checkDeclaration(declaration);
      assert.equal(problems.length, 1, JSON.stringify(problems));
      assert.equal(problems[0]?.pointer, mistake.pointer);
      assert.match(problems[0]?.message ?? '', mistake.message);
    });
  }
});

describe('the names plainrest keeps for itself are refused, in every language (declarations/reserved-names.ts)', () => {
  /** The one problem of the library with `change` made to it. */
  function onlyProblem(change: (declaration: Record<string, any>) => void): DeclarationProblem | undefined {
    const declaration = library();
    change(declaration);
    const problems = checkDeclaration(declaration);
    assert.equal(problems.length, 1, JSON.stringify(problems));
    return problems[0];
  }

  test("eventos, the change feed in Portuguese: as a collection and as a vocabulary's collection", () => {
    const line = '"eventos" is reserved: plainrest serves /v1/eventos itself (its change feed, in Portuguese)';
    assert.deepEqual(
      onlyProblem((d) => (d.resources.eventos = { ...d.resources.authors, names: undefined })),
      { pointer: '/resources/eventos', message: line },
    );
    assert.deepEqual(
      onlyProblem((d) => (d.resources.authors.names.pt.collection = 'eventos')),
      { pointer: '/resources/authors/names/pt/collection', message: line },
    );
  });

  test('the list holds every path the route table serves under /v1 but the collections, in every language', () => {
    const table = compileObject(library() as ResourcesDeclaration);
    assert.ok(table.languages.includes('pt'));
    const served = routeTable(table)
      .filter((route) => route.kind !== 'collection' && route.kind !== 'item' && route.pattern.startsWith('/v1/'))
      .map((route) => route.pattern.slice('/v1/'.length));
    assert.deepEqual(served, ['openapi.json', 'tokens', 'events', 'batches', 'eventos']);
    for (const segment of served) assert.ok(RESERVED_NAMES.has(segment), segment);
    for (const name of ['openapi', 'self', 'keys', 'idempotency_keys']) assert.ok(RESERVED_NAMES.has(name), name);
  });

  for (const [name, reason] of [...RESERVED_NAMES].filter(([name]) => NAME.test(name))) {
    test(`"${name}": as a collection, a nested one, and a collection's name in a vocabulary, known or not`, () => {
      const message = `"${name}" is reserved: ${reason}`;
      assert.deepEqual(
        onlyProblem((d) => (d.resources[name] = { ...d.resources.authors, names: undefined })),
        { pointer: `/resources/${name}`, message },
      );
      assert.deepEqual(
        onlyProblem(
          (d) => (d.resources[name] = { singular: 'entry', parent: 'authors', properties: { n: { type: 'integer' } } }),
        ),
        { pointer: `/resources/${name}`, message },
      );
      for (const language of ['pt', 'es']) {
        assert.deepEqual(
          onlyProblem((d) => (d.resources.authors.names[language] = { collection: name })),
          { pointer: `/resources/authors/names/${language}/collection`, message },
        );
      }
    });
  }
});

describe('every problem at once', () => {
  test('all the mistakes above, made together, are all reported', () => {
    const declaration = library();
    // Left out: mistakes that add a whole collection (copies would carry the others' problems)
    // or that write the same member as another one (`tags`, the books' status's `x-initial`).
    const apart = new Set([
      'a reserved collection name',
      "the built-in keys' name",
      "a property where users' password hash is kept",
      "the built-in keys' path under users in a vocabulary",
      'a collection name with capitals',
      'retyping a built-in user field',
      'x-filter inside an array',
      "the built-in users' name in a vocabulary",
      'two collections sharing a path segment in a vocabulary',
      'an initial state outside the enum',
      'no initial state',
    ]);
    const together = MISTAKES.filter((mistake) => !apart.has(mistake.name));
    for (const mistake of together) mistake.change(declaration);
    const pointers = checkDeclaration(declaration).map((problem) => problem.pointer);
    for (const mistake of together)
      assert.ok(pointers.includes(mistake.pointer), `${mistake.name}: ${mistake.pointer} in ${pointers.join(', ')}`);
  });

  test('a cycle in parent is reported for each collection on it', () => {
    const declaration = library();
    declaration.resources.authors.parent = 'books';
    const problems = checkDeclaration(declaration);
    assert.deepEqual(
      problems.map((problem) => problem.pointer),
      ['/resources/authors/parent', '/resources/books/parent'],
    );
    assert.match(problems[0]?.message ?? '', /authors → books → authors/);
  });

  test('not an object at all', () => {
    assert.deepEqual(checkDeclaration([]), [
      { pointer: '', message: 'must be a JSON object with a "resources" member' },
    ]);
    assert.deepEqual(checkDeclaration({ resources: 3 }), [
      { pointer: '/resources', message: 'must be an object of collections' },
    ]);
  });

  test('more than a hundred problems: the first hundred, then how many more', () => {
    const declaration = library();
    for (let index = 0; index < 150; index++)
      declaration.resources.books.properties[`bad_${index}`] = { type: 'nothing' };
    assert.throws(
      () => compileObject(declaration as ResourcesDeclaration),
      (error: unknown) => {
        assert.ok(error instanceof DeclarationError);
        assert.equal(error.lines.length, 101);
        assert.equal(error.lines[100], 'resources: and 50 more problems');
        return true;
      },
    );
  });

  test(`collections nest at most ${MAX_NESTING} deep, counting the built-in users when a chain starts under them`, () => {
    /** c1 under users (undeclared), c2 under c1, … */
    const chain = (length: number): Record<string, any> => ({
      resources: Object.fromEntries(
        Array.from({ length }, (_, index) => [
          `c${index + 1}`,
          {
            singular: `one_c${index + 1}`,
            parent: index === 0 ? 'users' : `c${index}`,
            properties: { note: { type: 'string' } },
          },
        ]),
      ),
    });
    assert.deepEqual(checkDeclaration(chain(MAX_NESTING - 1)), [], `users and ${MAX_NESTING - 1} below them`);
    const deepest = `c${MAX_NESTING}`;
    assert.deepEqual(checkDeclaration(chain(MAX_NESTING)), [
      {
        pointer: `/resources/${deepest}/parent`,
        message: `nests ${deepest} ${MAX_NESTING + 1} collections deep; at most ${MAX_NESTING} may nest`,
      },
    ]);
    assert.equal(
      checkDeclaration(chain(MAX_COLLECTIONS)).length,
      MAX_COLLECTIONS - MAX_NESTING + 1,
      'each collection too deep is named',
    );
    assert.deepEqual(
      checkDeclaration(chain(1000)),
      [{ pointer: '/resources', message: `declares 1000 collections; at most ${MAX_COLLECTIONS} may be declared` }],
      'a chain 1,000 deep is refused for its length first',
    );
  });

  test('a member name with / or ~ is escaped in the pointer (RFC 6901)', () => {
    const declaration = library();
    declaration.resources.books.properties['a/b~c'] = { type: 'string' };
    assert.equal(checkDeclaration(declaration)[0]?.pointer, '/resources/books/properties/a~1b~0c');
  });
});

describe('patterns: valid, bounded, and matchable in linear time', () => {
  test(`a pattern over ${MAX_PATTERN_LENGTH} characters, or with groups nested over ${MAX_PATTERN_GROUP_DEPTH} deep, is refused; at the bounds it is accepted`, () => {
    assert.equal(patternProblem(`^${'a'.repeat(MAX_PATTERN_LENGTH - 2)}$`), undefined);
    assert.equal(
      patternProblem('a'.repeat(100_000)),
      `is 100000 characters long; a pattern is limited to ${MAX_PATTERN_LENGTH}`,
    );
    const nested = (depth: number): string => `${'('.repeat(depth)}a${')'.repeat(depth)}`;
    assert.equal(patternProblem(nested(MAX_PATTERN_GROUP_DEPTH)), undefined);
    assert.equal(
      patternProblem(`[(((((((((((((((((]${nested(2)}\\(`),
      undefined,
      'parentheses in a class or escaped are not groups',
    );
    for (const depth of [MAX_PATTERN_GROUP_DEPTH + 1, 400]) {
      assert.equal(
        patternProblem(nested(depth)),
        `nests groups deeper than ${MAX_PATTERN_GROUP_DEPTH}; a pattern is limited to that depth`,
      );
    }
  });

  const cases: readonly [string, string | undefined][] = [
    ['^[0-9]{13}$', undefined],
    ['^(\\d{3}-){2}\\d{4}$', undefined],
    ['^[a-z]+(-[a-z]+)*$', undefined],
    ['^[(+*)]+$', undefined],
    // Nested and overlapping repetitions cost a backtracking engine exponential time; here they are plain patterns.
    ['^(a+)+$', undefined],
    ['(a|aa)+$', undefined],
    ['(.*){20}x', undefined],
    ['^(?<year>\\d{4})-(?:0[1-9]|1[0-2])$', undefined],
    ['^(a)\\1$', 'uses a back-reference, which cannot be matched in linear time'],
    ['^(?<x>a)\\k<x>$', 'uses a back-reference, which cannot be matched in linear time'],
    ['^(?=.*\\d)[a-z\\d]{8}$', 'uses a lookahead or lookbehind, which cannot be matched in linear time'],
    ['(?<!x)y', 'uses a lookahead or lookbehind, which cannot be matched in linear time'],
    [
      '^a{2000}$',
      `spells out 2003 states once its counted repetitions are written out; at most ${MAX_PATTERN_STATES} are allowed`,
    ],
    [
      '^(a{100}){100}$',
      `spells out 10003 states once its counted repetitions are written out; at most ${MAX_PATTERN_STATES} are allowed`,
    ],
    [
      'a{99999999999999999999}',
      `spells out over a billion states once its counted repetitions are written out; at most ${MAX_PATTERN_STATES} are allowed`,
    ],
  ];
  for (const [pattern, refusal] of cases) {
    test(`${pattern} is ${refusal === undefined ? 'accepted' : 'refused'}`, () => {
      assert.equal(patternProblem(pattern), refusal);
    });
  }
});

describe('what could never hold a value, or would burden every document, is refused', () => {
  /** The problems of a declaration of one collection with these properties. */
  const problemsOf = (properties: Record<string, unknown>, required: string[] = []): DeclarationProblem[] =>
    checkDeclaration({ resources: { things: { singular: 'thing', properties, required } } });
  const at = (property: string, message: string, keyword = ''): DeclarationProblem[] => [
    { pointer: `/resources/things/properties/${property}${keyword}`, message },
  ];

  test('bounds with nothing between them', () => {
    assert.deepEqual(
      problemsOf({ a: { type: 'string', minLength: 5, maxLength: 3 } }),
      at('a', 'is more than maxLength (3): no string fits', '/minLength'),
    );
    assert.deepEqual(
      problemsOf({ a: { type: 'array', items: { type: 'string' }, minItems: 4, maxItems: 3 } }),
      at('a', 'is more than maxItems (3): no array fits', '/minItems'),
    );
    assert.deepEqual(
      problemsOf({ a: { type: 'integer', minimum: 5, maximum: 3 } }),
      at('a', 'its bounds leave no integer between them'),
    );
    assert.deepEqual(
      problemsOf({ a: { type: 'integer', exclusiveMinimum: 1, exclusiveMaximum: 2 } }),
      at('a', 'its bounds leave no integer between them'),
    );
    assert.deepEqual(
      problemsOf({ a: { type: 'number', exclusiveMinimum: 5, maximum: 5 } }),
      at('a', 'its bounds leave no number between them'),
    );
    assert.deepEqual(
      problemsOf({ a: { type: 'object', properties: { b: { type: 'number', minimum: 2, maximum: 1 } } } }),
      at('a', 'its bounds leave no number between them', '/properties/b'),
    );
    assert.deepEqual(
      problemsOf({
        a: { type: 'number', minimum: 5, maximum: 5 },
        b: { type: 'integer', exclusiveMinimum: 1.5, maximum: 2 },
        c: { type: 'string', minLength: 3, maxLength: 3 },
      }),
      [],
    );
  });

  test('a default its own schema refuses, and a required property no client may give', () => {
    assert.deepEqual(
      problemsOf({ a: { type: 'string', maxLength: 3, default: 'abcdef' } }),
      at('a', 'does not fit the schema: it must be at most 3 characters long', '/default'),
    );
    assert.deepEqual(
      problemsOf({ a: { type: 'string', pattern: '^x$', default: 'y' } }),
      at('a', 'does not fit the schema: it must match the pattern ^x$', '/default'),
    );
    assert.deepEqual(
      problemsOf({ a: { type: 'object', properties: { b: { type: 'integer' } }, default: { b: 'one' } } }),
      at('a', 'does not fit the schema: it .b must be an integer', '/default'),
    );
    assert.deepEqual(
      problemsOf({ a: { type: 'string', readOnly: true } }, ['a']),
      at('a', 'a required property is given by the client, so it cannot be readOnly', '/readOnly'),
    );
    assert.deepEqual(
      problemsOf({ a: { type: 'string', readOnly: true, maxLength: 9, default: 'fits' } }),
      [],
      'a readOnly default that fits is kept',
    );
  });

  test('set-null on an array of references with minItems: taking an id out could leave it too short', () => {
    const references = (onDelete: string, minItems?: number) => ({
      type: 'array',
      items: { type: 'integer', 'x-references': 'things' },
      'x-on-delete': onDelete,
      ...(minItems === undefined ? {} : { minItems }),
    });
    assert.deepEqual(
      problemsOf({ a: references('set-null', 1) }),
      at(
        'a',
        '"set-null" on an array with "minItems" could leave it too short: use "restrict" or "cascade"',
        '/x-on-delete',
      ),
    );
    for (const fine of [
      references('set-null', 0),
      references('set-null'),
      references('restrict', 1),
      references('cascade', 2),
    ])
      assert.deepEqual(problemsOf({ a: fine }), [], JSON.stringify(fine));
  });

  test('enum values are strings, numbers or booleans', () => {
    for (const odd of [null, [], { a: 1 }]) {
      assert.deepEqual(
        problemsOf({ a: { enum: ['a', odd] } }),
        at('a', 'each value must be a string, a number or true/false', '/enum'),
      );
    }
  });

  test(`at most ${MAX_COLLECTIONS} collections, ${MAX_PROPERTIES} properties, and a default or examples of ${MAX_EXAMPLE_LENGTH} characters`, () => {
    const collections = (count: number): Record<string, unknown> =>
      Object.fromEntries(
        Array.from({ length: count }, (_, i) => [
          `c${i}`,
          { singular: `s${i}`, properties: { a: { type: 'string' } } },
        ]),
      );
    assert.deepEqual(checkDeclaration({ resources: collections(MAX_COLLECTIONS) }), []);
    assert.deepEqual(checkDeclaration({ resources: collections(MAX_COLLECTIONS + 1) }), [
      {
        pointer: '/resources',
        message: `declares ${MAX_COLLECTIONS + 1} collections; at most ${MAX_COLLECTIONS} may be declared`,
      },
    ]);
    const properties = (count: number): Record<string, unknown> =>
      Object.fromEntries(
        Array.from({ length: count }, (_, i) => [`p${i}`, { type: 'object', properties: { x: { type: 'string' } } }]),
      );
    assert.deepEqual(problemsOf(properties(MAX_PROPERTIES / 2)), [], 'nested members count');
    assert.deepEqual(problemsOf(properties(MAX_PROPERTIES / 2 + 1)), [
      {
        pointer: '/resources',
        message: `declares ${MAX_PROPERTIES + 2} properties in all; at most ${MAX_PROPERTIES} may be declared`,
      },
    ]);
    assert.deepEqual(problemsOf({ a: { type: 'string', default: 'x'.repeat(MAX_EXAMPLE_LENGTH - 2) } }), []);
    assert.deepEqual(
      problemsOf({ a: { type: 'string', default: 'x'.repeat(MAX_EXAMPLE_LENGTH) } }),
      at('a', `is ${MAX_EXAMPLE_LENGTH + 2} characters of JSON; it is limited to ${MAX_EXAMPLE_LENGTH}`, '/default'),
    );
    assert.deepEqual(
      problemsOf({ a: { type: 'string', examples: ['x'.repeat(MAX_EXAMPLE_LENGTH)] } }),
      at('a', `is ${MAX_EXAMPLE_LENGTH + 4} characters of JSON; it is limited to ${MAX_EXAMPLE_LENGTH}`, '/examples'),
    );
  });
});

describe('declarations too deep or too large are refused before they are checked, with no stack overflow', () => {
  /** `value` wrapped in `depth` arrays. */
  function nested(depth: number, value: unknown): unknown {
    let wrapped = value;
    for (let level = 0; level < depth; level++) wrapped = [wrapped];
    return wrapped;
  }

  test('an enum value nested 5,000 deep: one problem, where the bound is crossed', () => {
    const declaration = library();
    declaration.resources.books.properties.title = { enum: [nested(5000, 'x')] };
    const problems = checkDeclaration(declaration);
    assert.equal(problems.length, 1);
    assert.match(problems[0]?.pointer ?? '', /^\/resources\/books\/properties\/title\/enum\/0(\/0)+$/);
    assert.equal(
      problems[0]?.message,
      `nests deeper than ${MAX_DECLARATION_DEPTH} levels; a declaration is limited to that depth`,
    );
  });

  test('a schema nested 3,000 objects deep, given as an object: refused the same way (embedding), or as not plain JSON when stringify cannot follow it', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < 3000; level++) schema = { type: 'object', properties: { inner: schema } };
    const declaration = library();
    declaration.resources.books.properties.deep = schema;
    assert.match(checkDeclaration(declaration)[0]?.message ?? '', /nests deeper than/);
    assert.throws(
      () => compileObject(declaration as ResourcesDeclaration),
      (error: unknown) =>
        error instanceof DeclarationError && /nests deeper than|not plain JSON data/.test(error.message),
    );
  });

  test(`more than ${MAX_DECLARATION_VALUES} values (a 200,000-value enum) is one problem`, () => {
    const declaration = library();
    declaration.resources.books.properties.title = { enum: Array.from({ length: 200_000 }, (_, index) => `v${index}`) };
    assert.deepEqual(checkDeclaration(declaration), [
      {
        pointer: '',
        message: `holds more than ${MAX_DECLARATION_VALUES} JSON values; a declaration is limited to that many`,
      },
    ]);
  });

  test('a nesting within the bound is checked as usual: five objects deep', () => {
    let schema: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < 5; level++) schema = { type: 'object', properties: { inner: schema } };
    const declaration = library();
    declaration.resources.books.properties.deep = schema;
    assert.deepEqual(checkDeclaration(declaration), []);
  });

  test('an object with a cycle, given by an embedder, is refused as not plain JSON data', () => {
    const declaration = library();
    declaration.resources.books.properties.title.self = declaration.resources.books.properties.title;
    assert.throws(
      () => compileObject(declaration as ResourcesDeclaration),
      (error: unknown) =>
        error instanceof DeclarationError && /^resources: \(top level\): is not plain JSON data \(/.test(error.message),
    );
  });

  test(`a file over ${MAX_DECLARATION_BYTES} bytes is refused before it is read`, async () => {
    const dir = await temporaryDirectory();
    try {
      const path = join(dir.path, 'big.json');
      await writeFile(path, JSON.stringify({ resources: {}, 'x-padding': 'p'.repeat(MAX_DECLARATION_BYTES) }));
      await assert.rejects(loadDeclarationFile(path), (error: unknown) => {
        assert.ok(error instanceof DeclarationError);
        assert.match(
          error.lines[0] ?? '',
          new RegExp(
            `^${path.replaceAll('/', '\\/')}: is \\d+ bytes; a declaration is limited to ${MAX_DECLARATION_BYTES} bytes$`,
          ),
        );
        return true;
      });
    } finally {
      await dir.remove();
    }
  });
});

describe('the keyword table drives the checker and the compiler', () => {
  /** A valid value for each kind of keyword, on a property where every keyword may stand. */
  const VALUES: Readonly<Record<KeywordValue, unknown>> = {
    'whole number': 1,
    number: 1,
    'positive number': 1,
    boolean: false,
    string: 'text',
    array: [],
    'checked apart': undefined,
  };

  test('a keyword of each kind is checked by its kind, and an unknown one is refused', () => {
    for (const [name, keyword] of Object.entries(KEYWORDS)) {
      if (keyword.value === 'checked apart') continue;
      const wrong = keyword.value === 'string' ? 1 : 'wrong';
      const problems = checkDeclaration({
        resources: {
          things: {
            singular: 'thing',
            properties: { a: { type: 'string', [name]: VALUES[keyword.value] }, b: { type: 'string', [name]: wrong } },
          },
        },
      });
      assert.deepEqual(
        problems.map((problem) => problem.pointer),
        [`/resources/things/properties/b/${name}`],
        name,
      );
    }
    assert.deepEqual(
      checkDeclaration({
        resources: { things: { singular: 'thing', properties: { a: { type: 'string', maxLenght: 3 } } } },
      }),
      [{ pointer: '/resources/things/properties/a/maxLenght', message: 'unknown keyword "maxLenght"' }],
    );
  });

  test('every bound is copied into the compiled rule', () => {
    const schema = Object.fromEntries(BOUND_KEYWORDS.map((name) => [name, 3]));
    const rule = compileRule('a', { type: 'number', ...schema }, false, () => undefined);
    for (const name of BOUND_KEYWORDS) assert.equal(rule[name], 3, name);
  });

  test("an extension that is only for a collection's own properties is refused inside an object", () => {
    const topLevelOnly = Object.entries(KEYWORDS)
      .filter(([, keyword]) => 'topLevelOnly' in keyword)
      .map(([name]) => name);
    assert.deepEqual(topLevelOnly, [
      'x-filter',
      'x-sort',
      'x-search',
      'x-unique',
      'x-on-delete',
      'x-transitions',
      'x-admin-only',
      'x-owner-may-set',
      'x-initial',
    ]);
    for (const name of topLevelOnly) {
      const problems = checkDeclaration({
        resources: {
          things: {
            singular: 'thing',
            properties: { a: { type: 'object', properties: { b: { type: 'string', [name]: true } } } },
          },
        },
      });
      assert.ok(
        problems.some(
          (problem) =>
            problem.pointer === `/resources/things/properties/a/properties/b/${name}` &&
            problem.message === 'applies to a top-level property only',
        ),
        name,
      );
    }
  });
});
