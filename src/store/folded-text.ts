// Text as `contains` and `starts` compare it (README: Lists, "Filter operators"): case and accents ignored.
// Decomposed (Unicode NFD), the combining marks of Unicode's five combining-diacritics blocks dropped, then
// lower-cased; PostgreSQL folds the same way in SQL with the same class of marks (COMBINING_MARKS).

/** The marks dropped, as a regular-expression class that JavaScript and PostgreSQL both read. */
export const COMBINING_MARKS = '[\\u0300-\\u036f\\u1ab0-\\u1aff\\u1dc0-\\u1dff\\u20d0-\\u20ff\\ufe20-\\ufe2f]';

const MARKS = new RegExp(COMBINING_MARKS, 'g');
const NOT_ASCII = /[^\x00-\x7f]/;

/** "Crème Brûlée" → "creme brulee". ASCII text is only lower-cased: NFD changes nothing there. */
export function foldedText(text: string): string {
  if (!NOT_ASCII.test(text)) return text.toLowerCase();
  return text.normalize('NFD').replace(MARKS, '').toLowerCase();
}
