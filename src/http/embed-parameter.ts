// The `embed` parameter (README: Lists): which child collections and references a
// resource can embed, by every vocabulary's name of them, and which a request names.
// handlers/related-records.ts reads what they name.

import type { Language, ResourceDefinition, Vocabulary } from '../resources/definition.ts';
import { vocabularyOf } from '../resources/definition.ts';
import type { FieldError } from '../errors/errors.ts';

/**
 * One name of `embed`: a child collection, or a top-level reference to a collection that is not nested, or an array of
 * them (`many`: the records it names, in its order).
 */
export type Embed =
  | { readonly kind: 'children'; readonly definition: ResourceDefinition }
  | {
      readonly kind: 'reference';
      readonly field: string;
      readonly definition: ResourceDefinition;
      readonly many: boolean;
    };

/** What a resource can embed, and each by every vocabulary's name of it; made once per resource. */
interface Embeddable {
  readonly embeds: readonly Embed[];
  readonly byName: ReadonlyMap<string, Embed>;
}

const embeddables = new WeakMap<ResourceDefinition, Embeddable>();

function embeddableOf(definition: ResourceDefinition): Embeddable {
  let embeddable = embeddables.get(definition);
  if (embeddable === undefined) {
    const embeds: Embed[] = definition.children.map((child) => ({ kind: 'children', definition: child }));
    for (const { field, definition: target } of definition.referencing) {
      // A nested record is read under its parent's path, which a reference does not give.
      const many = definition.fields.find((rule) => rule.name === field)?.type === 'array';
      if (target.parent === undefined) embeds.push({ kind: 'reference', field, definition: target, many });
    }
    const byName = new Map<string, Embed>();
    for (const embed of embeds) {
      byName.set(declaredName(embed), embed);
      for (const vocabulary of definition.vocabularies.values()) byName.set(embedName(embed, vocabulary), embed);
    }
    embeddable = { embeds, byName };
    embeddables.set(definition, embeddable);
  }
  return embeddable;
}

/** What `definition` can embed, in declaration order (for the OpenAPI document's `_embedded`). */
export function embedsOf(definition: ResourceDefinition): readonly Embed[] {
  return embeddableOf(definition).embeds;
}

/** The names `embed` may take on `definition` in `language` (for the OpenAPI document). */
export function embedNames(definition: ResourceDefinition, language: Language): string[] {
  return embeddableOf(definition).embeds.map((embed) => embedName(embed, vocabularyOf(definition, language)));
}

/**
 * An embed's name where the embedding resource speaks `vocabulary`: the child collection's, or the reference
 * property's.
 */
export function embedName(embed: Embed, vocabulary: Vocabulary): string {
  return embed.kind === 'children'
    ? vocabularyOf(embed.definition, vocabulary.language).collection
    : vocabulary.name(embed.field);
}

function declaredName(embed: Embed): string {
  return embed.kind === 'children' ? embed.definition.collection : embed.field;
}

/** The embeds `value` names, each once; pushes an error naming `parameter` instead when one is unknown. */
export function parseEmbed(
  definition: ResourceDefinition,
  parameter: string,
  value: string,
  errors: FieldError[],
): readonly Embed[] | undefined {
  const { embeds, byName } = embeddableOf(definition);
  const chosen: Embed[] = [];
  for (const word of value.split(',')) {
    const embed = byName.get(word);
    if (embed === undefined || chosen.includes(embed)) {
      const offered = embeds.map(declaredName);
      const message =
        offered.length === 0
          ? 'this resource has nothing to embed'
          : `must list distinct names among ${offered.join(', ')}, separated by commas`;
      errors.push({ field: parameter, code: 'invalid_value', message });
      return undefined;
    }
    chosen.push(embed);
  }
  return chosen;
}
