// A collection's names in its json-server file (src/declarations/file-names.ts, docs/json-server.md): what
// `plainrest import` records under `x-json-server` (a dashed collection, camelCase members at every depth, through
// lists, the timestamps, 1.x's text ids), what the declaration checker refuses of it, and the translations both ways.

import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { importFile } from '../src/cli/import-command.ts';
import { checkDeclaration } from '../src/declarations/check-declaration.ts';
import {
  declaredNamesOf,
  declaredPath,
  fileNamesOf,
  toDeclaredNames,
  toFileNames,
} from '../src/declarations/file-names.ts';
import { cleanUpAfterEach, scratchDirectory } from './helpers.ts';

const FILE = {
  'blog-posts': [
    {
      id: 1,
      title: 'Hello',
      authorInfo: { firstName: 'Ada', homeTown: { cityName: 'London' } },
      editHistory: [{ editedBy: 'Ada', atPage: 1 }],
      createdAt: 1704164645000,
    },
    { id: 2, title: 'Again', authorInfo: { firstName: 'Alan', homeTown: { cityName: 'Wilmslow' } }, editHistory: [] },
  ],
  comments: [{ id: '1', body: 'first', blogPostId: '1' }],
  siteSettings: { darkMode: true },
  tags: [{ id: 1, label: 'news' }],
};

describe('the names an import records', () => {
  const defer = cleanUpAfterEach();

  test('a dashed collection, camelCase members at every depth and in lists, timestamps, 1.x text ids', async () => {
    const dir = await scratchDirectory(defer);
    const file = join(dir, 'db.json');
    await writeFile(file, JSON.stringify(FILE));
    await importFile({ file, resources: undefined, target: join(dir, 'data'), access: 'open', force: false });
    const declaration = JSON.parse(await readFile(join(dir, 'resources.json'), 'utf8'));
    const recorded = Object.fromEntries(
      Object.entries(declaration.resources as Record<string, Record<string, unknown>>).map(([name, body]) => [
        name,
        body['x-json-server'],
      ]),
    );
    assert.deepEqual(recorded, {
      blog_posts: {
        name: 'blog-posts',
        properties: {
          author_info: 'authorInfo',
          'author_info.first_name': 'firstName',
          'author_info.home_town': 'homeTown',
          'author_info.home_town.city_name': 'cityName',
          edit_history: 'editHistory',
          'edit_history.edited_by': 'editedBy',
          'edit_history.at_page': 'atPage',
          created_at: 'createdAt',
        },
      },
      comments: { name: 'comments', properties: { blog_post_id: 'blogPostId' }, ids: 'text' },
      site_settings: { name: 'siteSettings', properties: { dark_mode: 'darkMode' } },
      // Nothing to record: the file's names are the declared ones.
      tags: undefined,
    });
    assert.deepEqual(checkDeclaration(declaration), []);
  });

  test('the summary names one record of a collection in the singular, as the import names its records', async () => {
    const dir = await scratchDirectory(defer);
    const file = join(dir, 'db.json');
    const data = { 'blog-entries': [{ id: 1, title: 'One' }], categories: [{ id: 1 }, { id: 2 }], boxes: [{ id: 1 }] };
    await writeFile(file, JSON.stringify(data));
    const lines = await importFile({
      file,
      resources: undefined,
      target: join(dir, 'data'),
      access: 'open',
      force: false,
    });
    const loaded = lines.find((line) => line.startsWith('loaded '));
    assert.equal(loaded, `loaded 1 blog_entry, 2 categories, 1 box into the data directory ${join(dir, 'data')}`);
  });
});

describe('the checker', () => {
  const base = (recorded: unknown, more: Record<string, unknown> = {}): unknown => ({
    resources: {
      posts: {
        singular: 'post',
        properties: {
          post_title: { type: 'string' },
          author: { type: 'object', properties: { first_name: { type: 'string' } } },
          tags: { type: 'array', items: { type: 'object', properties: { tag_name: { type: 'string' } } } },
        },
        'x-json-server': recorded,
        ...more,
      },
      notes: { singular: 'note', properties: { text: { type: 'string' } } },
    },
  });

  test('accepts names at every depth, through lists, and the timestamps', () => {
    const recorded = {
      name: 'blog-posts',
      properties: {
        post_title: 'postTitle',
        'author.first_name': 'firstName',
        'tags.tag_name': 'tagName',
        created_at: 'createdAt',
      },
      ids: 'text',
    };
    assert.deepEqual(checkDeclaration(base(recorded)), []);
  });

  test('refuses what the dialect could not speak, at its pointer', () => {
    const at = '/resources/posts/x-json-server';
    const cases: [unknown, Record<string, unknown>, string, RegExp][] = [
      ['posts', {}, at, /^must be an object/],
      [{ name: 'a/b' }, {}, `${at}/name`, /no "\/"/],
      [{ name: '' }, {}, `${at}/name`, /1 to 128 characters/],
      [{ name: 'notes' }, {}, '/resources/notes/x-json-server', /^"notes" is also the file's name of posts$/],
      [{ name: 'p', extra: 1 }, {}, `${at}/extra`, /^unknown member$/],
      [{ name: 'p', ids: 'text' }, { 'x-id': 'uuid' }, `${at}/ids`, /on integer ids only/],
      [{ name: 'p', properties: { nothing: 'x' } }, {}, `${at}/properties/nothing`, /names no declared property/],
      [{ name: 'p', properties: { 'author.last': 'x' } }, {}, `${at}/properties/author.last`, /names no declared/],
      [{ name: 'p', properties: { post_title: 3 } }, {}, `${at}/properties/post_title`, /must be a name/],
      [
        { name: 'p', properties: { post_title: 'author' } },
        {},
        `${at}/properties/post_title`,
        /is also a declared member's name there/,
      ],
      [
        { name: 'p', properties: { post_title: 'x', 'author.first_name': 'y', tags: 'x' } },
        {},
        `${at}/properties/tags`,
        /^"x" names post_title too$/,
      ],
    ];
    for (const [recorded, more, pointer, message] of cases) {
      const problems = checkDeclaration(base(recorded, more));
      assert.equal(problems.length, 1, JSON.stringify({ recorded, problems }));
      assert.equal(problems[0]?.pointer, pointer, JSON.stringify(recorded));
      assert.match(problems[0]?.message ?? '', message, JSON.stringify(recorded));
    }
  });
});

describe('the translations', () => {
  const names = fileNamesOf('blog_posts', {
    name: 'blog-posts',
    properties: { post_id: 'postId', author: 'writer', 'author.first_name': 'firstName', 'tags.tag_name': 'tagName' },
  });

  test('a record into the file names and back, at every depth and through lists', () => {
    const record = {
      id: 1,
      post_id: 2,
      author: { first_name: 'Ada', age: 36 },
      tags: [{ tag_name: 'x' }, { tag_name: 'y' }],
      other: { first_name: 'kept' },
    };
    const file = {
      id: 1,
      postId: 2,
      writer: { firstName: 'Ada', age: 36 },
      tags: [{ tagName: 'x' }, { tagName: 'y' }],
      other: { first_name: 'kept' },
    };
    assert.deepEqual(toFileNames(record, names), file);
    assert.deepEqual(toDeclaredNames(file, declaredNamesOf(names)), record);
    assert.equal(declaredPath('writer.firstName', declaredNamesOf(names)), 'author.first_name');
    assert.equal(declaredPath('other.first_name', declaredNamesOf(names)), 'other.first_name');
  });

  test('none recorded: the declared names, the declared collection', () => {
    const none = fileNamesOf('tags', undefined);
    assert.deepEqual(none, { collection: 'tags', properties: new Map(), idsAsText: false });
    assert.deepEqual(toFileNames({ a_b: 1 }, none), { a_b: 1 });
  });
});
