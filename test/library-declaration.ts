// A library declared in JSON (README: Your own resources), the domain the declaration
// tests share: authors (public, with a Portuguese vocabulary), their books (a pattern,
// x-unique, decimal prices, a state machine) and loans owned by the user who makes them
// (a reference, a date, an admin-only state an owner may set to "returned").

import type { ResourcesDeclaration } from '../src/declarations/declaration.js';

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
