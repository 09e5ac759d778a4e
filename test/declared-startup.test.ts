// Declarations at start (README: Your own resources, Troubleshooting): a bad declaration
// stops the start before anything listens, one line per problem naming the file and
// the JSON pointer (a JSON syntax error: its line and column), exit status 2, no stack
// trace; `plainrest check-resources FILE` says the same without starting. Stored data
// that the declaration no longer fits (a new required property, a removed collection
// that still has records) also stops the start, naming the collection, the property,
// the count and the first ids, and changes no file; an additive change starts.

import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, test } from 'node:test';
import { killAll, runToExit } from './child-process.ts';
import { cleanUpAfterEach, connect, hashDirectory, scratchDirectory, TEST_AUTH_OPTIONS } from './helpers.ts';
import { REPOSITORY_ROOT } from './repository.ts';
import type { ResourcesDeclaration } from '../src/index.ts';
import { startServer, StartupError } from '../src/index.ts';

const MAIN = join(REPOSITORY_ROOT, 'dist', 'plainrest.mjs');
/** Each test's bound on a hang: the processes it starts take seconds apiece on a busy machine. */
const TIMEOUT = { timeout: 60_000 };

const NOTES = {
  resources: {
    notes: {
      singular: 'note',
      access: { list: 'user', read: 'user', create: 'user', update: 'admin', delete: 'admin' },
      properties: { text: { type: 'string', minLength: 1, maxLength: 500 } },
      required: ['text'],
    },
  },
};

describe('a bad declaration: one line per problem, exit 2, nothing listening', () => {
  afterEach(() => killAll());
  const defer = cleanUpAfterEach();

  const BAD = {
    resources: {
      books: {
        singular: 'book',
        properties: {
          isbn: { type: 'string', pattern: '^[0-9' },
          title: { type: 'string', maxLenght: 300 },
          code: { type: 'string', pattern: '^(a)\\1$' },
        },
        required: ['isbn', 'author'],
      },
      tokens: { singular: 'token', properties: { id: { type: 'integer' } } },
      chapters: { singular: 'chapter', parent: 'sections', properties: { n: { type: 'integer' } } },
      sections: { singular: 'section', parent: 'chapters', properties: { n: { type: 'integer' } } },
    },
  };
  const EXPECTED = [
    'resources.json: /resources/books/properties/isbn/pattern: not a valid regular expression',
    'resources.json: /resources/books/properties/title/maxLenght: unknown keyword "maxLenght"',
    'resources.json: /resources/books/properties/code/pattern: uses a back-reference, which cannot be matched in linear time',
    'resources.json: /resources/books/required/1: names no declared property ("author")',
    'resources.json: /resources/tokens: "tokens" is reserved: plainrest serves /v1/tokens itself (its token endpoint)',
    'resources.json: /resources/tokens/properties/id: every record has "id" already; it cannot be declared',
    'resources.json: /resources/chapters/parent: the parent chain comes back to "chapters": chapters → sections → chapters',
    'resources.json: /resources/sections/parent: the parent chain comes back to "sections": sections → chapters → sections',
  ];

  test('the server refuses to start with every problem at once', TIMEOUT, async () => {
    const dir = await scratchDirectory(defer);
    await writeFile(join(dir, 'resources.json'), JSON.stringify(BAD, null, 2));
    const before = await hashDirectory(dir);
    const result = await runToExit(process.execPath, [MAIN, '--port', '0', '--data-dir', 'data'], {
      cwd: dir,
      env: { PATH: process.env['PATH'] ?? '', RESOURCES: 'resources.json' },
    });
    assert.equal(result.code, 2);
    assert.equal(result.stdout, '', 'no banner: nothing listened');
    assert.deepEqual(
      result.stderr.trimEnd().split('\n'),
      EXPECTED.map((line) => `cannot start: ${line}`),
    );
    assert.deepEqual(await hashDirectory(dir), before, 'no data directory made, no file changed');
  });

  test('check-resources prints the same lines and exits 2; a good file exits 0', TIMEOUT, async () => {
    const dir = await scratchDirectory(defer);
    await writeFile(join(dir, 'resources.json'), JSON.stringify(BAD));
    await writeFile(join(dir, 'notes.json'), JSON.stringify(NOTES));
    const env = { PATH: process.env['PATH'] ?? '' };
    const bad = await runToExit(process.execPath, [MAIN, 'check-resources', 'resources.json'], { cwd: dir, env });
    assert.equal(bad.code, 2);
    assert.deepEqual(bad.stderr.trimEnd().split('\n'), EXPECTED);
    const good = await runToExit(process.execPath, [MAIN, 'check-resources', 'notes.json'], { cwd: dir, env });
    assert.equal(good.code, 0);
    assert.equal(good.stdout, 'notes.json: ok; serves users, notes, keys, webhooks, deliveries\n');
  });

  test('a file that is not JSON is refused at its line and column', TIMEOUT, async () => {
    const dir = await scratchDirectory(defer);
    await writeFile(join(dir, 'broken.json'), '{\n  "resources": {\n    "notes": { "singular": "note", }\n  }\n}\n');
    const result = await runToExit(process.execPath, [MAIN, 'check-resources', 'broken.json'], {
      cwd: dir,
      env: { PATH: process.env['PATH'] ?? '' },
    });
    assert.equal(result.code, 2);
    assert.match(result.stderr, /^broken\.json:3:\d+: not valid JSON \([^\n]+\)\n$/);
  });

  test('a missing file names itself', TIMEOUT, async () => {
    const dir = await scratchDirectory(defer);
    const result = await runToExit(process.execPath, [MAIN, '--resources', 'nowhere.json'], {
      cwd: dir,
      env: { PATH: process.env['PATH'] ?? '' },
    });
    assert.equal(result.code, 2);
    assert.equal(result.stderr, 'cannot start: nowhere.json: cannot read the declaration: no such file\n');
  });
});

describe('stored data against a changed declaration', () => {
  const defer = cleanUpAfterEach();

  /** Starts on `dataDir` with `resources`, makes `notes` notes, stops. */
  async function withNotes(dataDir: string, resources: unknown, notes: number): Promise<void> {
    const api = await connect(
      await startServer({
        port: 0,
        dataDir,
        seed: false,
        rateLimit: 0,
        accessLog: 'off',
        resources: resources as ResourcesDeclaration,
        ...TEST_AUTH_OPTIONS,
      }),
    );
    for (let i = 0; i < notes; i++) assert.equal((await api.post('/v1/notes', { text: `note ${i}` })).status, 201);
    await api.close();
  }

  async function refusal(dataDir: string, resources: unknown): Promise<StartupError> {
    const error = await startServer({
      port: 0,
      dataDir,
      resources: resources as ResourcesDeclaration,
      accessLog: 'off',
      ...TEST_AUTH_OPTIONS,
    }).then(
      async (server) => {
        await server.close();
        return assert.fail('the server started');
      },
      (failure: unknown) => failure,
    );
    assert.ok(error instanceof StartupError, String(error));
    return error;
  }

  test(
    'a new required property: refused with the collection, the property, the count and the first ids; no file changes',
    TIMEOUT,
    async () => {
      const dataDir = await scratchDirectory(defer);
      await withNotes(dataDir, NOTES, 7);
      const before = await hashDirectory(dataDir);
      const stricter = structuredClone(NOTES) as typeof NOTES & {
        resources: { notes: { properties: Record<string, unknown>; required: string[] } };
      };
      stricter.resources.notes.properties['author'] = { type: 'string' };
      stricter.resources.notes.required.push('author');
      const error = await refusal(dataDir, stricter);
      assert.match(
        error.message,
        /notes: 7 records \(ids 1, 2, 3, 4, 5, …\) lack "author", which the declaration requires/,
      );
      assert.doesNotMatch(error.message, /\n/);
      assert.deepEqual(await hashDirectory(dataDir), before);
    },
  );

  test(
    'a removed collection that still has records is refused; a narrowed type too; an added optional property starts',
    TIMEOUT,
    async () => {
      const dataDir = await scratchDirectory(defer);
      await withNotes(dataDir, NOTES, 2);
      const before = await hashDirectory(dataDir);
      const removed = await refusal(dataDir, { resources: { memos: NOTES.resources.notes } });
      assert.match(removed.message, /notes: 2 records \(ids 1, 2\) but the declaration has no collection notes/);
      const narrowed = structuredClone(NOTES) as { resources: { notes: { properties: Record<string, unknown> } } };
      narrowed.resources.notes.properties['text'] = { type: 'integer' };
      const retyped = await refusal(dataDir, narrowed);
      assert.match(
        retyped.message,
        // in the journal since the first start's snapshots (a stop rewrites none): the entry that put it is named
        /journal-000000000001\.jsonl: the entry with seq 2 puts notes record 1 with the field "text" holding "note 0" where notes declare an integer; correct the value or the declaration \(2 notes records have "text" wrong: ids 1, 2\)/,
      );
      assert.deepEqual(await hashDirectory(dataDir), before);

      const added = structuredClone(NOTES) as { resources: { notes: { properties: Record<string, unknown> } } };
      added.resources.notes.properties['pinned'] = { type: 'boolean', 'x-filter': true };
      const api = await connect(
        await startServer({
          port: 0,
          dataDir,
          resources: added as unknown as ResourcesDeclaration,
          accessLog: 'off',
          ...TEST_AUTH_OPTIONS,
        }),
      );
      try {
        assert.equal((await api.get('/v1/notes?pinned=true')).body.meta.total, 0);
        assert.equal((await api.get('/v1/notes')).body.meta.total, 2);
      } finally {
        await api.close();
      }
    },
  );
});
