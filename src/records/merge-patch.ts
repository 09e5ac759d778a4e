// JSON Merge Patch, RFC 7396 §2: objects merge key by key, `null` removes a key,
// and anything else (arrays included) replaces the target value wholesale.

import type { JsonObject, JsonValue } from './json.ts';
import { isJsonObject } from './json.ts';

export function applyMergePatch(target: JsonValue | undefined, patch: JsonValue): JsonValue {
  if (!isJsonObject(patch)) return patch;
  const result: Record<string, JsonValue> = {};
  if (isJsonObject(target)) {
    for (const key of Object.keys(target)) setOwn(result, key, target[key] as JsonValue);
  }
  for (const key of Object.keys(patch)) {
    const value = (patch as JsonObject)[key] as JsonValue;
    if (value === null) delete result[key];
    else setOwn(result, key, applyMergePatch(Object.hasOwn(result, key) ? result[key] : undefined, value));
  }
  return result;
}

/** Defines an own property even for a key such as `__proto__`, which plain assignment would not. */
function setOwn(object: Record<string, JsonValue>, key: string, value: JsonValue): void {
  Object.defineProperty(object, key, { value, enumerable: true, writable: true, configurable: true });
}
