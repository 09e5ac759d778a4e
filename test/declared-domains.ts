// Three domains declared in JSON (README: Your own resources) that the declaration tests
// share. A library: authors (public, with a Portuguese vocabulary), their books (a pattern,
// x-unique, decimal prices, a state machine) and loans owned by the user who makes them
// (a reference, a date, an admin-only state an owner may set to "returned"). A
// workshop: owned teams → projects → tasks, three levels deep, with a nested object, an
// array, a boolean filter and properties that may hold null; and a singleton, its board. A kanban of declared ids:
// uuids, chosen strings, a collection nested under them, a reference and an array of references to them.

import type { ResourcesDeclaration } from '../src/declarations/declaration.ts';

export const LIBRARY: ResourcesDeclaration = {
  resources: {
    authors: {
      singular: 'author',
      access: { list: 'public', read: 'public', create: 'admin', update: 'admin', delete: 'admin' },
      properties: {
        name: { type: 'string', minLength: 1, maxLength: 200, 'x-sort': true },
        country: { type: 'string', pattern: '^[A-Z]{2}$', 'x-filter': true },
      },
      required: ['name'],
      names: { pt: { collection: 'autores', singular: 'autor', properties: { name: 'nome', country: 'pais' } } },
    },
    books: {
      singular: 'book',
      parent: 'authors',
      access: { list: 'public', read: 'public', create: 'admin', update: 'admin', delete: 'admin' },
      properties: {
        title: { type: 'string', minLength: 1, maxLength: 300, 'x-sort': true },
        isbn: { type: 'string', pattern: '^[0-9]{13}$', 'x-unique': true },
        price: { type: 'number', minimum: 0, multipleOf: 0.01, 'x-sort': true },
        status: {
          enum: ['draft', 'published', 'withdrawn'],
          default: 'draft',
          'x-filter': true,
          'x-transitions': { draft: ['published'], published: ['withdrawn'], withdrawn: [] },
        },
      },
      required: ['title', 'isbn', 'price'],
    },
    loans: {
      singular: 'loan',
      owned: true,
      access: { list: 'owner', read: 'owner', create: 'user', update: 'owner', delete: 'admin' },
      properties: {
        book_id: { type: 'integer', 'x-references': 'books' },
        due: { type: 'string', format: 'date', 'x-sort': true },
        state: {
          enum: ['open', 'returned', 'lost'],
          default: 'open',
          'x-admin-only': true,
          'x-owner-may-set': ['returned'],
          'x-transitions': { open: ['returned', 'lost'], returned: [], lost: [] },
        },
      },
      required: ['book_id', 'due'],
    },
  },
};

export const WORKSHOP: ResourcesDeclaration = {
  resources: {
    teams: {
      singular: 'team',
      owned: true,
      access: { list: 'owner', read: 'owner', create: 'user', update: 'owner', delete: 'owner' },
      properties: { name: { type: 'string', minLength: 1, maxLength: 80 } },
      required: ['name'],
    },
    projects: {
      singular: 'project',
      parent: 'teams',
      access: { list: 'owner', read: 'owner', create: 'owner', update: 'owner', delete: 'owner' },
      properties: { title: { type: 'string', minLength: 1, maxLength: 80 } },
      required: ['title'],
    },
    tasks: {
      singular: 'task',
      parent: 'projects',
      access: { list: 'owner', read: 'owner', create: 'owner', update: 'owner', delete: 'owner' },
      properties: {
        summary: { type: 'string', minLength: 1, maxLength: 200 },
        done: { type: 'boolean', default: false, 'x-filter': true },
        estimate: {
          type: 'object',
          properties: { hours: { type: 'integer', minimum: 0, maximum: 1000 }, confidence: { enum: ['low', 'high'] } },
          required: ['hours'],
        },
        tags: { type: 'array', maxItems: 3, items: { type: 'string', minLength: 1, maxLength: 20 } },
        note: { type: ['string', 'null'], maxLength: 100, 'x-filter': true },
        due: { type: ['null', 'string'], format: 'date', 'x-sort': true },
      },
      required: ['summary'],
    },
    // A singleton (README: Your own resources): one record at /v1/board, made at the start from its defaults.
    board: {
      singular: 'board',
      'x-singleton': true,
      access: { read: 'user', update: 'admin' },
      properties: {
        title: { type: 'string', minLength: 1, maxLength: 80, default: 'Workshop' },
        notice: { type: ['string', 'null'], maxLength: 200 },
        open: { type: 'boolean', default: true },
      },
    },
  },
};

/**
 * A kanban of declared ids (README: Your own resources, ids): cards with uuids the server makes, boards with ids their
 * client chooses and lanes nested under them (integer ids under a string one), and notes naming a card (a reference,
 * filtered) and some boards (an array of references, taken out of the array when a board goes).
 */
export const KANBAN: ResourcesDeclaration = {
  resources: {
    cards: {
      singular: 'card',
      'x-id': 'uuid',
      access: { list: 'user', read: 'user', create: 'user', update: 'user', delete: 'admin' },
      properties: { title: { type: 'string', minLength: 1, maxLength: 80, 'x-search': true } },
      required: ['title'],
    },
    boards: {
      singular: 'board',
      'x-id': 'string',
      access: { list: 'user', read: 'user', create: 'user', update: 'user', delete: 'admin' },
      properties: { name: { type: 'string', minLength: 1, maxLength: 80, 'x-sort': true } },
      required: ['name'],
    },
    lanes: {
      singular: 'lane',
      parent: 'boards',
      access: { list: 'user', read: 'user', create: 'user', update: 'user', delete: 'admin' },
      properties: { title: { type: 'string', minLength: 1, maxLength: 40 } },
      required: ['title'],
    },
    notes: {
      singular: 'note',
      access: { list: 'user', read: 'user', create: 'user', update: 'user', delete: 'admin' },
      properties: {
        text: { type: 'string', minLength: 1, maxLength: 200 },
        card_id: { type: ['string', 'null'], 'x-references': 'cards', 'x-filter': true, 'x-on-delete': 'set-null' },
        board_ids: {
          type: 'array',
          maxItems: 3,
          items: { type: 'string', 'x-references': 'boards' },
          'x-on-delete': 'set-null',
        },
      },
      required: ['text'],
    },
  },
};
