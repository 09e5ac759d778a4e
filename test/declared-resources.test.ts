// Declared resources over HTTP (README: Your own resources): two domains declared only
// in JSON, neither of them the example. A library (authors, their books, loans owned by
// the user who makes them, a Portuguese vocabulary) exercises the keywords' 422s, the
// extensions' 409s, 422s and 403s, public access without a token and owners across
// users; a workshop (teams, their projects, their tasks) nests three levels deep under
// an owned collection, with parent checks, Location, links and cascade deletes.

import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { LIBRARY, WORKSHOP } from './declared-domains.ts';
import type { TestServer } from './helpers.ts';
import { createUser, startTestServer, tokenFor } from './helpers.ts';

/** The `errors` of a 422 as field/code pairs. */
function fieldCodes(body: { errors?: { field: string; code: string }[] }): { field: string; code: string }[] {
  return (body.errors ?? []).map(({ field, code }) => ({ field, code }));
}

describe('a declared library: the declaration is the whole API', () => {
  let admin: TestServer;
  let alice: TestServer;
  let bob: TestServer;
  let anonymous: TestServer;
  before(async () => {
    admin = await startTestServer({ resources: LIBRARY });
    alice = admin.as(tokenFor(await createUser(admin, { name: 'Alice' })));
    bob = admin.as(tokenFor(await createUser(admin, { name: 'Bob' })));
    anonymous = admin.as(undefined);
  });
  after(() => admin.close());

  test('only the declared collections (and users) are served: /v1/products is a 404', async () => {
    const response = await admin.get('/v1/products');
    assert.equal(response.status, 404);
    assert.equal(response.body.code, 'route_not_found');
    const index = await anonymous.get('/v1');
    // With `batches` (POST /v1/batches, docs/batches.md) and `webhooks` (docs/webhooks.md): served whatever the
    // declaration.
    assert.deepEqual(Object.keys(index.body.links).sort(), [
      'authors',
      'autores',
      'batches',
      'events',
      'loans',
      'openapi',
      'self',
      'tokens',
      'users',
      'usuarios',
      'webhooks',
    ]);
  });

  test('public access: lists and reads need no token, writes still do (401), and a user is not an admin (403)', async () => {
    const created = await admin.post('/v1/authors', { name: 'Machado de Assis', country: 'BR' });
    assert.equal(created.status, 201);
    assert.equal(created.headers.get('location'), `/v1/authors/${created.body.id}`);
    const list = await anonymous.get('/v1/authors');
    assert.equal(list.status, 200);
    assert.ok(list.body.data.some((author: { name: string }) => author.name === 'Machado de Assis'));
    assert.equal((await anonymous.get(`/v1/authors/${created.body.id}`)).status, 200);
    const unsigned = await anonymous.post('/v1/authors', { name: 'X' });
    assert.equal(unsigned.status, 401);
    assert.ok(unsigned.headers.get('www-authenticate')?.startsWith('Bearer'));
    const asUser = await alice.post('/v1/authors', { name: 'X' });
    assert.equal(asUser.status, 403);
    assert.equal(asUser.body.code, 'forbidden');
    const badToken = await admin.as('not-a-token').get('/v1/authors');
    assert.equal(badToken.status, 401, 'a token that is sent is checked even where none is needed');
  });

  test('every keyword has its 422 code, one entry per property', async () => {
    const author = (await admin.post('/v1/authors', { name: 'Keyword Author' })).body.id as number;
    const path = `/v1/authors/${author}/books`;
    const cases: [Record<string, unknown>, { field: string; code: string }[]][] = [
      [{ title: '', isbn: '9780000000001', price: 1 }, [{ field: 'title', code: 'too_short' }]],
      [{ title: 'x'.repeat(301), isbn: '9780000000001', price: 1 }, [{ field: 'title', code: 'too_long' }]],
      [{ title: 'T', isbn: '97800', price: 1 }, [{ field: 'isbn', code: 'pattern_mismatch' }]],
      [{ title: 'T', isbn: '9780000000001', price: -1 }, [{ field: 'price', code: 'too_small' }]],
      [{ title: 'T', isbn: '9780000000001', price: 1.234 }, [{ field: 'price', code: 'invalid_format' }]],
      [{ title: 'T', isbn: '9780000000001', price: '1' }, [{ field: 'price', code: 'invalid_type' }]],
      [{ title: 'T', isbn: '9780000000001', price: 1, status: 'lost' }, [{ field: 'status', code: 'invalid_value' }]],
      [{ title: 'T', isbn: '9780000000001', price: 1, colour: 'red' }, [{ field: 'colour', code: 'unknown_field' }]],
      [
        { title: 'T' },
        [
          { field: 'isbn', code: 'required' },
          { field: 'price', code: 'required' },
        ],
      ],
      [{ title: 'T', isbn: '9780000000001', price: 1, id: 5 }, [{ field: 'id', code: 'server_field' }]],
    ];
    for (const [body, errors] of cases) {
      const response = await admin.post(path, body);
      assert.equal(response.status, 422, JSON.stringify(body));
      assert.equal(response.body.code, 'validation_failed');
      assert.deepEqual(fieldCodes(response.body), errors, JSON.stringify(body));
    }
    const badCountry = await admin.post('/v1/authors', { name: 'N', country: 'brazil' });
    assert.deepEqual(fieldCodes(badCountry.body), [{ field: 'country', code: 'pattern_mismatch' }]);
  });

  test('x-unique is a 409 across parents; x-transitions is a 409 naming the allowed states; the same state again is no change', async () => {
    const first = (await admin.post('/v1/authors', { name: 'First' })).body.id as number;
    const second = (await admin.post('/v1/authors', { name: 'Second' })).body.id as number;
    const book = await admin.post(`/v1/authors/${first}/books`, {
      title: 'Dom Casmurro',
      isbn: '9780000000002',
      price: 10,
    });
    assert.equal(book.status, 201);
    assert.equal(book.body.status, 'draft', 'the default');
    assert.equal(book.body.author_id, first);
    const duplicate = await admin.post(`/v1/authors/${second}/books`, {
      title: 'Copy',
      isbn: '9780000000002',
      price: 1,
    });
    assert.equal(duplicate.status, 409);
    assert.equal(duplicate.body.code, 'duplicate_value');
    const item = `/v1/authors/${first}/books/${book.body.id}`;
    const skip = await admin.patch(item, { status: 'withdrawn' });
    assert.equal(skip.status, 409);
    assert.equal(skip.body.code, 'invalid_transition');
    assert.match(skip.body.detail, /from draft it may go to published/);
    assert.equal((await admin.patch(item, { status: 'published' })).status, 200);
    const again = await admin.patch(item, { status: 'published' });
    assert.equal(again.status, 200);
    assert.equal(again.body.updated_at, (await admin.get(item)).body.updated_at);
    assert.equal(
      (await admin.get(`/v1/authors/${second}/books/${book.body.id}`)).status,
      404,
      'found only under its own author',
    );
  });

  test('a PUT without a field that has a default keeps its value, as the document says (a record always has it)', async () => {
    const author = (await admin.post('/v1/authors', { name: 'Kept' })).body.id as number;
    const book = await admin.post(`/v1/authors/${author}/books`, { title: 'Kept', isbn: '9780000000019', price: 3 });
    const item = `/v1/authors/${author}/books/${book.body.id}`;
    assert.equal((await admin.patch(item, { status: 'published' })).status, 200);
    for (const path of [item, `/v1/autores/${author}/books/${book.body.id}`]) {
      const replaced = await admin.put(path, { title: 'Kept again', isbn: '9780000000019', price: 4 });
      assert.equal(replaced.status, 200, replaced.text);
      assert.equal(replaced.body.status, 'published', path);
      assert.equal((await admin.get(path)).body.status, 'published', path);
    }
    const document = (await anonymous.get('/v1/openapi.json')).body;
    assert.match(
      document.paths['/v1/authors/{author_id}/books/{book_id}'].put.description,
      /status stay as they are when absent/,
    );
  });

  test('owned loans: the creator owns them, others get 403 whether or not the loan exists, admins get 404 for a missing one', async () => {
    const author = (await admin.post('/v1/authors', { name: 'Owner Test' })).body.id as number;
    const book = (
      await admin.post(`/v1/authors/${author}/books`, { title: 'Loanable', isbn: '9780000000003', price: 5 })
    ).body.id as number;
    const dangling = await alice.post('/v1/loans', { book_id: 999999, due: '2026-12-01' });
    assert.equal(dangling.status, 422);
    assert.deepEqual(fieldCodes(dangling.body), [{ field: 'book_id', code: 'unknown_book' }]);
    const schemas = (await anonymous.get('/v1/openapi.json')).body.components.schemas;
    for (const name of ['LoanCreate', 'LoanReplace', 'LoanPatch', 'Loan'])
      assert.equal(
        schemas[name].properties.book_id.description,
        'the id of an existing book (else a 422 unknown_book)',
      );
    const badDate = await alice.post('/v1/loans', { book_id: book, due: '2026-02-30' });
    assert.deepEqual(fieldCodes(badDate.body), [{ field: 'due', code: 'invalid_format' }]);
    const loan = await alice.post('/v1/loans', { book_id: book, due: '2026-12-01' });
    assert.equal(loan.status, 201);
    assert.equal(loan.body.state, 'open');
    assert.equal(loan.body.owner_id, (await alice.get('/v1/loans')).body.data[0].owner_id);
    const path = `/v1/loans/${loan.body.id}`;
    assert.equal((await alice.get(path)).status, 200);
    assert.equal((await bob.get(path)).status, 403);
    assert.equal((await bob.get('/v1/loans/999999')).status, 403, 'existence is not revealed');
    assert.equal((await admin.get('/v1/loans/999999')).status, 404);
    assert.equal((await bob.get('/v1/loans')).body.meta.total, 0, 'a user lists only their own loans');
    assert.ok((await admin.get('/v1/loans')).body.meta.total >= 1, 'an admin lists them all');
    const lost = await alice.patch(path, { state: 'lost' });
    assert.equal(lost.status, 403, 'x-admin-only');
    assert.match(lost.body.detail, /you may set it to returned/);
    const returned = await alice.patch(path, { state: 'returned' });
    assert.equal(returned.status, 200, 'x-owner-may-set');
    assert.equal(returned.body.state, 'returned');
    const referenced = await admin.delete(`/v1/authors/${author}/books/${book}`);
    assert.equal(referenced.status, 409);
    assert.equal(referenced.body.code, 'still_referenced');
    assert.match(referenced.body.detail, /loans/);
    const viaAuthor = await admin.delete(`/v1/authors/${author}`);
    assert.equal(viaAuthor.status, 409, 'the author would take with it its book, which a loan references');
    assert.equal(viaAuthor.body.code, 'still_referenced');
    const document = (await anonymous.get('/v1/openapi.json')).body;
    for (const template of ['/v1/authors/{author_id}', '/v1/autores/{author_id}'])
      assert.ok(document.paths[template].delete.responses['409'], `DELETE ${template} declares its 409`);
    assert.equal((await admin.delete(path)).status, 204);
    const booksBefore = (await admin.server.app.recordCounts())['books'] as number;
    assert.equal((await admin.delete(`/v1/authors/${author}`)).status, 204, 'once no loan references its book');
    assert.equal((await admin.server.app.recordCounts())['books'], booksBefore - 1, 'the book went with its author');
  });

  test('the Portuguese vocabulary: paths, property names, filters, sort keys and links follow names.pt', async () => {
    await admin.post('/v1/autores', { nome: 'Clarice Lispector', pais: 'BR' });
    const list = await anonymous.get('/v1/autores?pais=BR&ordenar=-nome&limite=1');
    assert.equal(list.status, 200);
    assert.deepEqual(Object.keys(list.body.data[0]), ['id', 'nome', 'pais', 'criado_em', 'atualizado_em']);
    assert.ok(
      list.body.links.first.startsWith('/v1/autores?pais=BR&ordenar=-nome&pagina=1&limite=1'),
      list.body.links.first,
    );
    const wrong = await admin.post('/v1/autores', { name: 'English name on a Portuguese path' });
    assert.deepEqual(fieldCodes(wrong.body), [
      { field: 'name', code: 'unknown_field' },
      { field: 'nome', code: 'required' },
    ]);
  });
});

describe('a declared workshop: three levels under an owned collection', () => {
  let admin: TestServer;
  let carol: TestServer;
  let dave: TestServer;
  before(async () => {
    admin = await startTestServer({ resources: WORKSHOP });
    carol = admin.as(tokenFor(await createUser(admin, { name: 'Carol' })));
    dave = admin.as(tokenFor(await createUser(admin, { name: 'Dave' })));
  });
  after(() => admin.close());

  test('a write any user may make is a 403 with a read-only API key, and the document declares that 403', async () => {
    const readerId = await createUser(admin, { name: 'Reader' });
    const key = await admin.as(tokenFor(readerId)).post(`/v1/users/${readerId}/keys`, { name: 'r', read_only: true });
    assert.equal(key.status, 201, key.text);
    const refused = await admin.as(key.body.secret).post('/v1/teams', { name: 'Read only' });
    assert.equal(refused.status, 403);
    assert.equal(refused.body.code, 'forbidden');
    const paths = (await admin.as(undefined).get('/v1/openapi.json')).body.paths;
    assert.ok(paths['/v1/teams'].post.responses['403'], 'POST /v1/teams declares its 403');
    assert.ok(paths['/v1/teams/{team_id}'].put.responses['403'], 'PUT /v1/teams/{team_id} declares its 403');
    assert.equal((await admin.delete(`/v1/users/${readerId}`)).status, 204, 'the reader and its key go');
  });

  test('a PATCH cannot remove a field with a default (null is a 422), as the document says: a record always has it', async () => {
    const team = (await admin.post('/v1/teams', { name: 'Defaults' })).body.id as number;
    const project = (await admin.post(`/v1/teams/${team}/projects`, { title: 'P' })).body.id as number;
    const tasks = `/v1/teams/${team}/projects/${project}/tasks`;
    const task = (await admin.post(tasks, { summary: 'S', estimate: { hours: 1 } })).body.id as number;
    const removed = await admin.patch(`${tasks}/${task}`, { done: null });
    assert.equal(removed.status, 422);
    assert.deepEqual(fieldCodes(removed.body), [{ field: 'done', code: 'required' }]);
    assert.equal((await admin.get(`${tasks}/${task}`)).body.done, false);
    const optional = await admin.patch(`${tasks}/${task}`, { estimate: null });
    assert.equal(optional.status, 200, 'an optional field with no default is removed');
    assert.equal(optional.body.estimate, undefined);
    const schemas = (await admin.as(undefined).get('/v1/openapi.json')).body.components.schemas;
    assert.equal(schemas.TaskPatch.properties.done.type, 'boolean');
    assert.deepEqual(schemas.TaskPatch.properties.estimate.type, ['object', 'null']);
    assert.ok(schemas.Task.required.includes('done'));
    assert.equal((await admin.delete(`/v1/teams/${team}`)).status, 204);
  });

  test('/v1/teams/{id}/projects/{id}/tasks/{id}: Location, parent checks at every level, nested values, owners, cascade delete', async () => {
    const team = await carol.post('/v1/teams', { name: 'Red' });
    assert.equal(team.status, 201);
    const project = await carol.post(`/v1/teams/${team.body.id}/projects`, { title: 'Boat' });
    assert.equal(project.status, 201);
    assert.equal(project.headers.get('location'), `/v1/teams/${team.body.id}/projects/${project.body.id}`);
    const tasksPath = `/v1/teams/${team.body.id}/projects/${project.body.id}/tasks`;
    const task = await carol.post(tasksPath, { summary: 'Sand the hull', estimate: { hours: 3 }, tags: ['wood'] });
    assert.equal(task.status, 201);
    assert.equal(task.headers.get('location'), `${tasksPath}/${task.body.id}`);
    assert.deepEqual(
      { project_id: task.body.project_id, done: task.body.done, estimate: task.body.estimate, tags: task.body.tags },
      { project_id: project.body.id, done: false, estimate: { hours: 3 }, tags: ['wood'] },
    );
    const invalid = await carol.post(tasksPath, {
      summary: 'x',
      estimate: { hours: -1, colour: 'red' },
      tags: ['a', 'b', 'c', 'd'],
      done: 'no',
    });
    assert.equal(invalid.status, 422);
    assert.deepEqual(fieldCodes(invalid.body), [
      { field: 'estimate.hours', code: 'too_small' },
      { field: 'estimate.colour', code: 'unknown_field' },
      { field: 'tags', code: 'too_many_items' },
      { field: 'done', code: 'invalid_type' },
    ]);
    const noHours = await carol.post(tasksPath, { summary: 'x', estimate: {} });
    assert.deepEqual(fieldCodes(noHours.body), [{ field: 'estimate.hours', code: 'required' }]);
    const filtered = await carol.get(`${tasksPath}?done=false`);
    assert.equal(filtered.body.meta.total, 1);
    assert.equal((await carol.get(`${tasksPath}?done=maybe`)).status, 400);

    const otherTeam = (await carol.post('/v1/teams', { name: 'Blue' })).body.id as number;
    assert.equal(
      (await carol.get(`/v1/teams/${otherTeam}/projects/${project.body.id}/tasks/${task.body.id}`)).status,
      404,
      'the project is not under that team',
    );
    assert.equal(
      (await dave.get(`${tasksPath}/${task.body.id}`)).status,
      403,
      'another user: 403 before anything is looked up',
    );
    assert.equal((await dave.get(`/v1/teams/${team.body.id}/projects/999/tasks/1`)).status, 403);
    assert.equal((await dave.post(tasksPath, { summary: 'intrude' })).status, 403);

    assert.deepEqual(await admin.server.app.recordCounts(), {
      users: 3,
      teams: 2,
      projects: 1,
      tasks: 1,
      board: 1,
      keys: 0,
    });
    assert.equal((await carol.delete(`/v1/teams/${team.body.id}`)).status, 204);
    assert.deepEqual(
      await admin.server.app.recordCounts(),
      { users: 3, teams: 1, projects: 0, tasks: 0, board: 1, keys: 0 },
      'the projects and tasks went with their team',
    );
    assert.equal((await admin.get(`/v1/teams/${team.body.id}/projects/${project.body.id}`)).status, 404);
  });
});

describe('a declaration that nests under the built-in users without declaring them', () => {
  const NOTES = {
    resources: {
      notes: {
        singular: 'note',
        parent: 'users',
        access: { list: 'owner', read: 'owner', create: 'owner', update: 'owner', delete: 'owner' },
        properties: {
          text: { type: 'string', minLength: 1 },
          reviewer_id: { type: 'integer', 'x-references': 'users' },
        },
        required: ['text'],
      },
    },
  } as const;
  let admin: TestServer;
  before(async () => {
    admin = await startTestServer({ resources: NOTES });
  });
  after(() => admin.close());

  test('/v1/users/{id}/notes: the owner writes and reads their notes, another user gets 403, a reference to a user is checked', async () => {
    const erin = await createUser(admin, { name: 'Erin' });
    const frank = await createUser(admin, { name: 'Frank' });
    const asErin = admin.as(tokenFor(erin));
    const created = await asErin.post(`/v1/users/${erin}/notes`, { text: 'Buy tea', reviewer_id: frank });
    assert.equal(created.status, 201, created.text);
    assert.equal(created.headers.get('location'), `/v1/users/${erin}/notes/${created.body.id}`);
    assert.deepEqual(
      { user_id: created.body.user_id, text: created.body.text, reviewer_id: created.body.reviewer_id },
      { user_id: erin, text: 'Buy tea', reviewer_id: frank },
    );
    assert.equal((await asErin.get(`/v1/users/${erin}/notes`)).body.meta.total, 1);
    assert.equal((await admin.as(tokenFor(frank)).get(`/v1/users/${erin}/notes`)).status, 403);
    const dangling = await asErin.post(`/v1/users/${erin}/notes`, { text: 'x', reviewer_id: 999 });
    assert.equal(dangling.status, 422);
    assert.deepEqual(fieldCodes(dangling.body), [{ field: 'reviewer_id', code: 'unknown_user' }]);
  });
});

describe('property names that are also names of Object.prototype', () => {
  const THINGS = {
    resources: {
      things: {
        singular: 'thing',
        properties: { constructor: { type: 'string', 'x-filter': true, 'x-sort': true, 'x-search': true } },
        names: { pt: { collection: 'coisas', singular: 'coisa' } },
      },
    },
  } as const;
  let admin: TestServer;
  before(async () => {
    admin = await startTestServer({ resources: THINGS });
  });
  after(() => admin.close());

  test('"constructor" with x-filter, x-sort and x-search: the home page, the OpenAPI document, a create, a filter, a sort and a search all answer', async () => {
    const page = await admin.request('GET', '/', { headers: { accept: 'text/html' } });
    assert.equal(page.status, 200, page.text.slice(0, 200));
    assert.ok(page.text.includes('<code>constructor</code>'), 'the filter is listed on the home page');
    const document = await admin.get('/v1/openapi.json');
    assert.equal(document.status, 200);
    assert.deepEqual(document.body.components.schemas.Thing.properties.constructor, { type: 'string' });
    for (const [path, value] of [
      ['/v1/things', 'Plain words'],
      ['/v1/coisas', 'Outras palavras'],
    ] as const) {
      assert.equal((await admin.post(path, { constructor: value })).status, 201);
    }
    assert.deepEqual(
      (await admin.get('/v1/things?constructor=Plain%20words')).body.data.map(
        (thing: { constructor: string }) => thing.constructor,
      ),
      ['Plain words'],
    );
    assert.deepEqual(
      (await admin.get('/v1/coisas?ordenar=-constructor')).body.data.map(
        (thing: { constructor: string }) => thing.constructor,
      ),
      ['Plain words', 'Outras palavras'],
    );
    assert.equal((await admin.get('/v1/things?q=palavras')).body.meta.total, 1);
  });
});
