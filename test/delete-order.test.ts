// A cascade through references deletes every record it reaches, on either store, whatever order the
// collections are declared in (a dependent must go before what it names where the database holds foreign keys).

import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { ResourcesDeclaration } from '../src/index.ts';
import type { TestServer } from './helpers.ts';
import { startTestServer } from './helpers.ts';
import { assertJson } from './assertions.ts';

const LIBRARY: ResourcesDeclaration = {
  resources: {
    authors: {
      singular: 'author',
      properties: { name: { type: 'string', minLength: 1, maxLength: 40 } },
      required: ['name'],
    },
    // Declared before books: deleting an author finds this note through author_id before the book it also names.
    notes: {
      singular: 'note',
      properties: {
        text: { type: 'string', minLength: 1, maxLength: 40 },
        author_id: { type: 'integer', 'x-references': 'authors', 'x-on-delete': 'cascade' },
        book_id: { type: 'integer', 'x-references': 'books', 'x-on-delete': 'cascade' },
      },
      required: ['text'],
    },
    books: {
      singular: 'book',
      properties: {
        title: { type: 'string', minLength: 1, maxLength: 40 },
        author_id: { type: 'integer', 'x-references': 'authors', 'x-on-delete': 'cascade' },
      },
      required: ['title'],
    },
  },
};

let api: TestServer;
before(async () => {
  api = await startTestServer({ resources: LIBRARY });
});
after(() => api.close());

async function idOf(collection: string, body: Record<string, unknown>): Promise<number> {
  const made = await api.post(`/v1/${collection}`, body);
  assertJson(made, 201);
  return made.body.id as number;
}

test('deleting an author deletes the book and the note that names both', async () => {
  const author = await idOf('authors', { name: 'Ana' });
  const book = await idOf('books', { title: 'One', author_id: author });
  const note = await idOf('notes', { text: 'n', author_id: author, book_id: book });
  const deleted = await api.delete(`/v1/authors/${author}`);
  assert.equal(deleted.status, 204, deleted.text);
  assert.equal((await api.get(`/v1/books/${book}`)).status, 404);
  assert.equal((await api.get(`/v1/notes/${note}`)).status, 404);
});

// On PostgreSQL the foreign keys are checked as each row goes, so two records naming each other cannot both be deleted
// (README: Your own resources): in memory only.
test(
  'two people naming each other (x-on-delete cascade) are deleted together',
  {
    skip:
      process.env['TEST_STORE'] === 'postgres' &&
      'PostgreSQL refuses a cycle of references (foreign keys checked per row)',
  },
  async () => {
    const people = await startTestServer({
      resources: {
        resources: {
          people: {
            singular: 'person',
            properties: {
              name: { type: 'string', minLength: 1, maxLength: 40 },
              buddy_id: { type: 'integer', 'x-references': 'people', 'x-on-delete': 'cascade' },
            },
            required: ['name'],
          },
        },
      },
    });
    try {
      const ana = await people.post('/v1/people', { name: 'Ana' });
      assertJson(ana, 201);
      const bea = await people.post('/v1/people', { name: 'Bea', buddy_id: ana.body.id });
      assertJson(bea, 201);
      assertJson(await people.patch(`/v1/people/${ana.body.id}`, { buddy_id: bea.body.id }), 200);
      const deleted = await people.delete(`/v1/people/${ana.body.id}`);
      assert.equal(deleted.status, 204, deleted.text);
      assert.equal((await people.get(`/v1/people/${bea.body.id}`)).status, 404);
    } finally {
      await people.close();
    }
  },
);
