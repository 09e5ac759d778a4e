// The example domain's one typed hook (README: Your own resources, Embedding): an order's prices. The declaration
// (data/example/resources.json) gives the order's fields, its state machine (`x-transitions`) and who may set its
// status, created `pending` (`x-initial`); this hook copies each item's unit price from its product when the items are
// set, computes the total in whole cents, and refuses (409) a change of items once the order is no longer pending.

import type { FieldError } from '../errors/errors.ts';
import { HookConflict, validationError } from '../errors/errors.ts';
import type { Fields, JsonObject } from '../records/json.ts';
import { isJsonObject } from '../records/json.ts';
import type { ResourceHook, WriteContext } from './definition.ts';

interface OrderItem extends JsonObject {
  readonly product_id: number;
  readonly quantity: number;
  readonly unit_price: number;
}

export const priceOrder: ResourceHook = ({ next, current, store }: WriteContext): Fields => {
  const requested = (next['items'] as readonly JsonObject[]).filter(isJsonObject);
  const currentItems = current === undefined ? undefined : (current['items'] as readonly OrderItem[]);
  const itemsChanged = currentItems === undefined || !sameLines(requested, currentItems);

  const errors: FieldError[] = [];
  const items = itemsChanged ? priceItems(requested, store, errors) : (currentItems as readonly OrderItem[]);
  requested.forEach((line, index) => {
    const sent = line['unit_price'];
    if (sent !== undefined && sent !== items[index]?.unit_price) {
      errors.push({ field: `items[${index}].unit_price`, code: 'server_field', message: 'is set by the server' });
    }
  });
  if (errors.length > 0) throw validationError(errors);

  const from = current?.['status'];
  if (current !== undefined && itemsChanged && from !== 'pending') {
    throw new HookConflict(
      'items_frozen',
      `items can be changed only while the order is pending; it is ${String(from)}`,
    );
  }
  return { ...next, items, total: totalOf(items) };
};

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
      errors.push({
        field: `items[${index}].product_id`,
        code: 'unknown_product',
        message: `no product has id ${productId}`,
      });
    } else if (seen.has(productId)) {
      errors.push({
        field: `items[${index}].product_id`,
        code: 'duplicate_product',
        message: 'each product may appear in one item only',
      });
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
