// The order resource (README: Records), nested under its user. Prices are copied from
// the products when the items are set, and the total is computed in whole cents so it
// is exact. Status follows pending → paid → shipped, with pending or paid → cancelled;
// an illegal transition is a 409, and items can be replaced only while pending (409).

import type { FieldError } from '../http/errors.js';
import { HttpError, validationError } from '../http/errors.js';
import type { Fields, JsonObject } from '../json.js';
import { isJsonObject } from '../json.js';
import { CREATED_AT_FIELD, ID_FIELD, UPDATED_AT_FIELD } from './definition.js';
import type { ResourceDefinition, WriteContext } from './definition.js';
import { MAX_PRICE } from './products.js';

export const ORDER_STATUSES = ['pending', 'paid', 'shipped', 'cancelled'] as const;
export type OrderStatus = (typeof ORDER_STATUSES)[number];

/** The state machine: from each status, the statuses it may move to. */
export const ORDER_TRANSITIONS: Readonly<Record<OrderStatus, readonly OrderStatus[]>> = {
  pending: ['paid', 'cancelled'],
  paid: ['shipped', 'cancelled'],
  shipped: [],
  cancelled: [],
};

export const MAX_ORDER_ITEMS = 50;
export const MAX_ITEM_QUANTITY = 1000;

export const orders: ResourceDefinition = {
  collection: 'orders',
  singular: 'order',
  parent: { collection: 'users', field: 'user_id' },
  owner: 'parent',
  fields: [
    ID_FIELD,
    { name: 'user_id', type: 'integer', access: 'server' },
    {
      name: 'items',
      type: 'list',
      access: 'client',
      required: true,
      min: 1,
      max: MAX_ORDER_ITEMS,
      of: [
        { name: 'product_id', type: 'integer', access: 'client', required: true, min: 1 },
        { name: 'quantity', type: 'integer', access: 'client', required: true, min: 1, max: MAX_ITEM_QUANTITY },
        { name: 'unit_price', type: 'money', access: 'server', min: 0, max: MAX_PRICE },
      ],
    },
    { name: 'total', type: 'money', access: 'server', sort: true },
    {
      name: 'status',
      type: 'enum',
      access: 'restricted',
      values: ORDER_STATUSES,
      default: 'pending',
      ownerMaySet: ['cancelled'],
      filter: true,
      sort: true,
    },
    CREATED_AT_FIELD,
    UPDATED_AT_FIELD,
  ],
  completeWrite: completeOrder,
};

interface OrderItem extends JsonObject {
  readonly product_id: number;
  readonly quantity: number;
  readonly unit_price: number;
}

function completeOrder({ next, current, store }: WriteContext): Fields {
  const requested = (next['items'] as readonly JsonObject[]).filter(isJsonObject);
  const status = next['status'] as OrderStatus;
  const currentItems = current === undefined ? undefined : (current['items'] as readonly OrderItem[]);
  const itemsChanged = currentItems === undefined || !sameLines(requested, currentItems);

  const errors: FieldError[] = [];
  if (current === undefined && status !== 'pending') {
    errors.push({ field: 'status', code: 'invalid_value', message: 'a new order is always pending' });
  }
  const items = itemsChanged ? priceItems(requested, store, errors) : (currentItems as readonly OrderItem[]);
  requested.forEach((line, index) => {
    const sent = line['unit_price'];
    if (sent !== undefined && sent !== items[index]?.unit_price) {
      errors.push({ field: `items[${index}].unit_price`, code: 'server_field', message: 'is set by the server' });
    }
  });
  if (errors.length > 0) throw validationError(errors);

  if (current !== undefined) {
    const from = current['status'] as OrderStatus;
    if (status !== from && !ORDER_TRANSITIONS[from].includes(status)) {
      throw new HttpError('invalid_transition', `an order cannot go from ${from} to ${status}`);
    }
    if (itemsChanged && from !== 'pending') {
      throw new HttpError('items_frozen', `items can be changed only while the order is pending; it is ${from}`);
    }
  }
  return { ...next, items, total: totalOf(items) };
}

/** The same products in the same quantities, in the same order. */
function sameLines(requested: readonly JsonObject[], current: readonly OrderItem[]): boolean {
  if (requested.length !== current.length) return false;
  return requested.every(
    (line, index) => line['product_id'] === current[index]?.product_id && line['quantity'] === current[index]?.quantity,
  );
}

function priceItems(requested: readonly JsonObject[], store: WriteContext['store'], errors: FieldError[]): OrderItem[] {
  const seen = new Set<number>();
  return requested.map((line, index) => {
    const productId = line['product_id'] as number;
    const quantity = line['quantity'] as number;
    const product = store.get('products', productId);
    if (product === undefined) {
      errors.push({ field: `items[${index}].product_id`, code: 'unknown_product', message: `no product has id ${productId}` });
    } else if (seen.has(productId)) {
      errors.push({ field: `items[${index}].product_id`, code: 'duplicate_product', message: 'each product may appear in one item only' });
    }
    seen.add(productId);
    const unitPrice = product === undefined ? 0 : (product['price'] as number);
    return { product_id: productId, quantity, unit_price: unitPrice };
  });
}

/** Sum in whole cents: prices have at most two decimals, so this is exact. */
function totalOf(items: readonly OrderItem[]): number {
  let cents = 0;
  for (const item of items) cents += Math.round(item.unit_price * 100) * item.quantity;
  return cents / 100;
}

