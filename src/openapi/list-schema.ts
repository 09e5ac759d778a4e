// The schema of a list's envelope (README: Lists): a page of records under `data`, its place in the list under `meta`
// and links to the other pages under `links`.

import { MAX_PAGE_SIZE } from '../http/list-query.ts';
import type { Schema } from './schemas.ts';

const LINK = { type: ['string', 'null'], description: 'a relative reference to another page of the same list' };
const COUNT = { type: 'integer', minimum: 0 };

/** A page of `items` (each a record, or a `fields=` selection of one, as the operation says). */
export function listSchema(items: Schema): Schema {
  return {
    type: 'object',
    required: ['data', 'meta', 'links'],
    additionalProperties: false,
    properties: {
      data: { type: 'array', maxItems: MAX_PAGE_SIZE, items },
      meta: {
        type: 'object',
        required: ['page', 'limit', 'total', 'pages'],
        additionalProperties: false,
        properties: {
          page: { ...COUNT, minimum: 1 },
          limit: { type: 'integer', minimum: 1, maximum: MAX_PAGE_SIZE },
          total: COUNT,
          pages: COUNT,
        },
      },
      links: {
        type: 'object',
        required: ['self', 'first', 'prev', 'next', 'last'],
        additionalProperties: false,
        properties: {
          self: { type: 'string' },
          first: { type: 'string' },
          prev: LINK,
          next: LINK,
          last: { type: 'string' },
        },
      },
    },
  };
}
