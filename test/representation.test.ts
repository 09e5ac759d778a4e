// A record just written is serialised once for the journal and the answer where the two
// texts are the same (src/resources/representation.ts, serializeWritten): that must be exactly
// when they are the same. For every resource and language, and records with and
// without optional fields, the stored text is JSON.stringify of the record and the
// representation is the one a later read builds from scratch.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { recordToStore } from '../src/handlers/write-record.ts';
import type { Fields, StoredRecord } from '../src/records/json.ts';
import { represent, serializeWritten, showsRecordAsStored } from '../src/resources/representation.ts';
import type { ResourceDefinition } from '../src/resources/definition.ts';
import { CREATED_AT_FIELD, ID_FIELD, UPDATED_AT_FIELD, vocabularyOf } from '../src/resources/definition.ts';
import { LANGUAGES, orders, products, users } from './example-definitions.ts';

const SAMPLES: readonly { definition: ResourceDefinition; fields: Fields[] }[] = [
  {
    definition: products,
    fields: [
      { name: 'Kettle "Pro"', category: 'equipment', price: 49.9, description: 'línea\nnueva' },
      { name: 'Tea', category: 'tea', price: 0 },
    ],
  },
  {
    definition: users,
    fields: [
      { name: 'Ana', email: 'ana@example.com', password_hash: 'scrypt$salt$hash', role: 'user' },
      { name: 'Bia', email: 'bia@example.com', role: 'admin' },
    ],
  },
  {
    definition: orders,
    fields: [{ user_id: 2, items: [{ product_id: 1, quantity: 2, unit_price: 3.5 }], total: 7, status: 'pending' }],
  },
];

test('the stored text serves as the representation for products in English only', () => {
  const shown = SAMPLES.flatMap(({ definition }) =>
    LANGUAGES.filter((language) => showsRecordAsStored(definition, vocabularyOf(definition, language))).map(
      (language) => `${definition.collection} ${language}`,
    ),
  );
  assert.deepEqual(shown, ['products en']);
});

test('serializeWritten gives JSON.stringify of the record and the representation a fresh read gives, for every resource and language', () => {
  let id = 1;
  for (const { definition, fields } of SAMPLES) {
    for (const next of fields) {
      for (const language of LANGUAGES) {
        const vocabulary = vocabularyOf(definition, language);
        const record = recordToStore(definition, next, id++, '2026-11-22T06:00:00.000Z', '2026-11-22T06:00:01.000Z');
        const written = serializeWritten(definition, record, vocabulary);
        assert.equal(written.stored, JSON.stringify(record));
        // An equal record that is not the same object has nothing cached: represent builds it from the fields.
        const fresh = represent(definition, Object.freeze({ ...record }) as StoredRecord, vocabulary, true);
        assert.deepEqual(written.representation, fresh, `${definition.collection} in ${language}`);
        assert.equal(
          represent(definition, record, vocabulary, true),
          written.representation,
          'the representation is cached for the record',
        );
      }
    }
  }
});

test('a declaration whose order differs from the stored record is represented from its fields', () => {
  // A declaration of its own, with vocabularies of its own as a compiled one has (never those of products).
  const vocabularies = new Map(
    [...products.vocabularies].map(([language, vocabulary]) => [language, { ...vocabulary }]),
  );
  const reordered: ResourceDefinition = {
    ...products,
    vocabularies,
    fields: [ID_FIELD, CREATED_AT_FIELD, ...products.fields.slice(1, -2), UPDATED_AT_FIELD],
  };
  const english = vocabularyOf(reordered, 'en');
  assert.equal(showsRecordAsStored(reordered, english), false);
  const record = recordToStore(
    reordered,
    { name: 'Cup', category: 'equipment', price: 3 },
    1,
    '2026-11-22T06:00:00.000Z',
    '2026-11-22T06:00:00.000Z',
  );
  const written = serializeWritten(reordered, record, english);
  assert.notEqual(written.representation.json, written.stored);
  assert.equal(
    written.representation.json,
    '{"id":1,"created_at":"2026-11-22T06:00:00.000Z","name":"Cup","category":"equipment","price":3,"updated_at":"2026-11-22T06:00:00.000Z"}',
  );
});
