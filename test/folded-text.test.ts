// Folded text (store/folded-text.ts), as `[contains]` and `[starts]` compare it (README: Lists, "Filter operators"):
// case and accents ignored; and the PostgreSQL store's SQL folds with the same class of marks.

import assert from 'node:assert/strict';
import { test } from 'node:test';
import { COMBINING_MARKS, foldedText } from '../src/store/folded-text.ts';
import { COMBINING_MARKS as SQL_COMBINING_MARKS } from '../packages/postgres/src/sql-conditions.ts';

test('accents and case are dropped; other characters stay', () => {
  assert.equal(foldedText('Crème Brûlée'), 'creme brulee');
  assert.equal(foldedText('ÉCRIRE, relire'), 'ecrire, relire');
  assert.equal(foldedText('Ångström № 5'), 'angstrom № 5');
  assert.equal(foldedText('plain ASCII'), 'plain ascii');
  // Precomposed and decomposed forms fold alike.
  assert.equal(foldedText('e\u0301'), foldedText('\u00e9'));
  assert.equal(foldedText('Ø'), 'ø');
});

test('the PostgreSQL store folds with the same marks, a class both regular-expression dialects read', () => {
  assert.equal(SQL_COMBINING_MARKS, COMBINING_MARKS);
  assert.ok(new RegExp(COMBINING_MARKS).test('\u0301'));
  assert.ok(!new RegExp(COMBINING_MARKS).test('e'));
});
