// A declaration written to be read and edited (README: Your own resources), laid out as data/example/resources.json
// is: collections and their members one per line, each property's schema on one line of its own while it fits.

import type { JsonValue } from '../records/json.ts';
import type { ResourcesDeclaration } from '../declarations/declaration.ts';

/** A schema longer than this is laid out over several lines. */
const LINE = 110;

export function declarationText(declaration: ResourcesDeclaration): string {
  return `${laidOut(declaration as unknown as JsonValue, '', 0)}\n`;
}

/** Depth 0 is the file, 1 `resources`, 2 a collection, 3 its members (`properties` one per line), 4 a property. */
function laidOut(value: JsonValue, indent: string, depth: number, name = ''): string {
  const inline = oneLine(value);
  if (typeof value !== 'object' || value === null || Array.isArray(value) || Object.keys(value).length === 0)
    return inline;
  const expand = depth < 3 || (depth === 3 && name === 'properties') || inline.length > LINE;
  if (!expand) return inline;
  const inner = `${indent}  `;
  const members = Object.entries(value).map(
    ([member, memberValue]) => `${inner}${JSON.stringify(member)}: ${laidOut(memberValue, inner, depth + 1, member)}`,
  );
  return `{\n${members.join(',\n')}\n${indent}}`;
}

/** `{ "type": "string", "x-search": true }`, `["a", "b"]`. */
function oneLine(value: JsonValue): string {
  if (Array.isArray(value)) return `[${(value as readonly JsonValue[]).map(oneLine).join(', ')}]`;
  if (typeof value !== 'object' || value === null) return JSON.stringify(value);
  const members = Object.entries(value).map(([name, member]) => `${JSON.stringify(name)}: ${oneLine(member)}`);
  return members.length === 0 ? '{}' : `{ ${members.join(', ')} }`;
}
