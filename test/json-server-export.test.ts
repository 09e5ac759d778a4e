// `plainrest export <db.json>` (docs/json-server.md: Leaving): a round trip, import → writes through /v1 → export →
// json-server 0.17 serving the exported file with the same records (the file's names, dashed and camelCase; ids as
// kept, as text where json-server 1.x wrote them; uuids; a client's ids; a singleton; createdAt); the refusals; the
// imported file exported over, then served on; users without the administrator or a password's hash.

import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { exportFile } from '../src/cli/export-command.ts';
import { importFile } from '../src/cli/import-command.ts';
import { startServer } from '../src/server/server.ts';
import { killAll } from './child-process.ts';
import { cleanUpAfterEach, scratchDirectory, TEST_ADMIN_PASSWORD, TEST_TOKEN_SECRET } from './helpers.ts';
import { linesOf, plainrest, plainrestToExit, serving, startJsonServer, stop } from './json-server-cli.ts';

const TIMEOUT = { timeout: 90_000 };
const NOTE = '0b7e4f5c-2d1a-4c3e-9f8a-1a2b3c4d5e6f';

/** A file as a json-server user keeps one: 1.x's text ids, camelCase and dashed names, uuids, a singleton. */
const FILE = {
  posts: [
    { id: '1', title: 'a title', views: 100 },
    { id: '2', title: 'another title', views: 200 },
  ],
  comments: [
    { id: '1', text: 'a comment about post 1', postId: '1' },
    { id: '2', text: 'another comment about post 1', postId: '1' },
  ],
  'blog-posts': [
    { id: 1, headLine: 'Hello', subTitle: null, authorInfo: { firstName: 'Ada' }, createdAt: 1704164645000 },
    {
      id: 2,
      headLine: 'Again',
      subTitle: 'b',
      authorInfo: { firstName: 'Bob', lastName: 'Marley' },
      createdAt: 1704164646000,
    },
  ],
  notes: [{ id: NOTE, text: 'remember', pinned: true }],
  boards: [{ id: 'road-map', name: 'Road map' }],
  siteSettings: { theme: 'dark', itemsPerPage: 20 },
};

async function send(url: string, method: string, body?: unknown): Promise<{ status: number; body: unknown }> {
  const response = await fetch(url, {
    method,
    headers: { 'content-type': method === 'PATCH' ? 'application/merge-patch+json' : 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? undefined : JSON.parse(text) };
}

describe('plainrest export', () => {
  const defer = cleanUpAfterEach();
  afterEach(killAll);

  test(
    'round trip: imported, written through /v1, exported, and json-server 0.17 serves the same records; the ' +
      'imported file exported over is served on as unchanged',
    TIMEOUT,
    async () => {
      const dir = await scratchDirectory(defer);
      await writeFile(join(dir, 'db.json'), JSON.stringify(FILE, null, 2));
      const run = plainrest(dir, ['db.json', '--port', '0']);
      const url = await serving(run);
      const made = await send(`${url}/v1/posts`, 'POST', { title: 'a third title', views: 3 });
      assert.equal(made.status, 201);
      assert.equal((await send(`${url}/v1/comments`, 'POST', { text: 'on the third', post_id: 3 })).status, 201);
      assert.equal((await send(`${url}/v1/comments/1`, 'PATCH', { text: 'a changed comment' })).status, 200);
      assert.equal((await send(`${url}/v1/comments/2`, 'DELETE')).status, 204);
      const post = { head_line: 'Third', sub_title: null, author_info: { first_name: 'Cy', last_name: 'Young' } };
      const third = await send(`${url}/v1/blog_posts`, 'POST', post);
      assert.equal(third.status, 201);
      const note = await send(`${url}/v1/notes`, 'POST', { text: 'and this', pinned: false });
      assert.equal(note.status, 201);
      const newNote = (note.body as { id: string }).id;
      assert.equal((await send(`${url}/v1/boards/ideas`, 'PUT', { name: 'Ideas' })).status, 201);
      assert.equal((await send(`${url}/v1/site_settings`, 'PATCH', { theme: 'light' })).status, 200);
      const thirdCreated = (third.body as { created_at: string }).created_at;
      // What json-server's dialect serves at the root, to compare with json-server's own answers below.
      const dialect: Record<string, unknown> = {};
      for (const name of Object.keys(FILE)) dialect[name] = await (await fetch(`${url}/${name}`)).json();

      // A running server's data is not read: its later writes would be missing.
      const refused = await plainrestToExit(dir, [
        'export',
        'exported.json',
        '--data-dir',
        'db.plainrest/data',
        '--resources',
        'db.plainrest/resources.json',
      ]);
      assert.equal(refused.code, 2);
      assert.match(
        refused.stderr,
        /^cannot export: db\.plainrest\/data is in use by process \d+ \(lock file db\.plainrest\/data\/plainrest\.lock\); stop that process, or delete the lock file if it is not plainrest\n$/,
      );
      await stop(run);

      assert.deepEqual(await plainrestToExit(dir, ['export', 'db.json']), {
        code: 2,
        stdout: '',
        stderr: 'cannot export: db.json exists; name another file, or pass --force\n',
      });
      const args = ['--data-dir', 'db.plainrest/data', '--resources', 'db.plainrest/resources.json'];
      assert.deepEqual(await plainrestToExit(dir, ['export', 'exported.json', ...args]), {
        code: 0,
        stdout:
          'wrote exported.json: 3 posts, 2 comments, 3 blog-posts, 2 notes, 2 boards, siteSettings, from ' +
          'db.plainrest/data\n',
        stderr: '',
      });
      const expected = {
        posts: [...FILE.posts, { id: '3', title: 'a third title', views: 3 }],
        comments: [
          { id: '1', text: 'a changed comment', postId: '1' },
          { id: '3', text: 'on the third', postId: '3' },
        ],
        // createdAt as plainrest keeps it (RFC 3339), whatever the file wrote.
        'blog-posts': [
          {
            id: 1,
            headLine: 'Hello',
            subTitle: null,
            authorInfo: { firstName: 'Ada' },
            createdAt: '2024-01-02T03:04:05.000Z',
          },
          {
            id: 2,
            headLine: 'Again',
            subTitle: 'b',
            authorInfo: { firstName: 'Bob', lastName: 'Marley' },
            createdAt: '2024-01-02T03:04:06.000Z',
          },
          {
            id: 3,
            headLine: 'Third',
            subTitle: null,
            authorInfo: { firstName: 'Cy', lastName: 'Young' },
            createdAt: thirdCreated,
          },
        ],
        // Each list in json-server's order: the file's records, then those made since, in the order they were made.
        notes: [...FILE.notes, { id: newNote, text: 'and this', pinned: false }],
        boards: [
          { id: 'road-map', name: 'Road map' },
          { id: 'ideas', name: 'Ideas' },
        ],
        siteSettings: { theme: 'light', itemsPerPage: 20 },
      };
      const exported = JSON.parse(await readFile(join(dir, 'exported.json'), 'utf8'));
      assert.deepEqual(exported, expected);
      assert.deepEqual(Object.keys(exported), Object.keys(FILE), "the file's collections in the file's order");

      // json-server 0.17 serves the exported file: every collection, an item, a nested list, the singleton.
      const reference = await startJsonServer(join(dir, 'exported.json'));
      defer(reference.close);
      for (const [name, value] of Object.entries(expected)) {
        const answer = await fetch(`${reference.url}/${name}`);
        assert.equal(answer.status, 200, name);
        assert.deepEqual(await answer.json(), value, name);
      }
      assert.deepEqual(dialect, expected, "plainrest's json-server dialect served the same before the export");
      assert.deepEqual(await (await fetch(`${reference.url}/posts/3/comments`)).json(), [
        { id: '3', text: 'on the third', postId: '3' },
      ]);
      assert.deepEqual(await (await fetch(`${reference.url}/boards/ideas`)).json(), { id: 'ideas', name: 'Ideas' });

      // Exported over the imported file: the next start serves the same records, the file being theirs.
      const over = await plainrestToExit(dir, ['export', 'db.json', '--force']);
      assert.deepEqual(over, {
        code: 0,
        stdout:
          'wrote db.json: 3 posts, 2 comments, 3 blog-posts, 2 notes, 2 boards, siteSettings, from db.plainrest/data\n' +
          'db.plainrest/imported.json: db.json now holds the records served from db.plainrest/data, and a start ' +
          'serves them on\n',
        stderr: '',
      });
      assert.equal(await readFile(join(dir, 'db.json'), 'utf8'), await readFile(join(dir, 'exported.json'), 'utf8'));
      const next = plainrest(dir, ['db.json', '--port', '0']);
      await serving(next);
      assert.match(linesOf(next.stdout())[0] as string, /^db\.json: unchanged since its import /);
      await stop(next);
    },
  );

  test('without the folder beside the file, the declaration and the records must be named', TIMEOUT, async () => {
    const dir = await scratchDirectory(defer);
    assert.deepEqual(await plainrestToExit(dir, ['export', 'backup.json']), {
      code: 2,
      stdout: '',
      stderr:
        'cannot export: backup.plainrest/resources.json is not there (plainrest backup.json makes it): name the ' +
        'declaration with --resources and the records with --data-dir or --database-url\n',
    });
    assert.deepEqual(await plainrestToExit(dir, ['export', 'backup.json', '--resources', 'resources.json']), {
      code: 2,
      stdout: '',
      stderr: 'cannot export: resources.json: cannot read the declaration: no such file\n',
    });
    assert.deepEqual(await plainrestToExit(dir, ['export']), {
      code: 2,
      stdout: '',
      stderr:
        'cannot export: usage: plainrest export <db.json> [--data-dir DIR | --database-url URL] [--resources FILE] ' +
        '[--force]; see --help\n',
    });
  });

  test("users come back without the administrator the server made, nor a password's hash", async () => {
    const dir = await scratchDirectory(defer);
    const file = join(dir, 'db.json');
    const users = [
      { id: 1, name: 'Ann', email: 'ann@example.com', nickName: 'annie' },
      { id: 2, name: 'Ben', email: 'ben@example.com', nickName: 'benny', role: 'admin' },
    ];
    await writeFile(file, JSON.stringify({ users, posts: [{ id: 1, title: 'first', userId: 2 }] }));
    const dataDir = join(dir, 'data');
    const resources = join(dir, 'resources.json');
    await importFile({ file, resources, target: dataDir, access: 'open', force: false });
    const server = await startServer({
      port: 0,
      resources,
      dataDir,
      adminPassword: TEST_ADMIN_PASSWORD,
      tokenSecret: TEST_TOKEN_SECRET,
    });
    const login = await send(`${server.url}/v1/tokens`, 'POST', {
      email: 'admin@example.com',
      password: TEST_ADMIN_PASSWORD,
    });
    const token = (login.body as { access_token: string }).access_token;
    const patched = await fetch(`${server.url}/v1/users/1`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/merge-patch+json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ password: 'a-new-password' }),
    });
    assert.equal(patched.status, 200);
    await server.close();
    const out = join(dir, 'out.json');
    const lines = await exportFile({
      file: out,
      from: dataDir,
      resources,
      force: false,
      administrator: 'admin@example.com',
    });
    assert.deepEqual(lines, [`wrote ${out}: 2 users, 1 post, from ${dataDir}`]);
    assert.deepEqual(JSON.parse(await readFile(out, 'utf8')), {
      users: [
        { id: 1, name: 'Ann', email: 'ann@example.com', role: 'user', nickName: 'annie' },
        { id: 2, name: 'Ben', email: 'ben@example.com', role: 'admin', nickName: 'benny' },
      ],
      posts: [{ id: 1, title: 'first', userId: 2 }],
    });
  });
});
