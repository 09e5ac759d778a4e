// The product resource (README: Records): a price is a number ≥ 0 with at most two
// decimals (kept below 10^9 so order totals stay exact in cents).

import { CREATED_AT_FIELD, ID_FIELD, UPDATED_AT_FIELD, type ResourceDefinition } from './definition.js';

export const MAX_PRICE = 1_000_000_000;

export const products: ResourceDefinition = {
  collection: 'products',
  singular: 'product',
  fields: [
    ID_FIELD,
    { name: 'name', type: 'string', access: 'client', required: true, min: 1, max: 200, sort: true },
    { name: 'category', type: 'string', access: 'client', required: true, min: 1, max: 50, filter: true, sort: true },
    { name: 'price', type: 'money', access: 'client', required: true, min: 0, max: MAX_PRICE, sort: true },
    { name: 'description', type: 'string', access: 'client', max: 2000 },
    CREATED_AT_FIELD,
    UPDATED_AT_FIELD,
  ],
};
