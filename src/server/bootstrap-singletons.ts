// The singletons ensured at every start (README: Your own resources, singletons): each whose required properties all
// have a default is made from its defaults, as a first PUT of `{}` would make it, unless it exists; one with a required
// property without a default is made by its first PUT, and is a 404 until then.

import { HttpError } from '../errors/errors.ts';
import { fieldsToStore, recordToStore } from '../handlers/write-record.ts';
import type { Logger } from '../logging/logger.ts';
import { isoTimestamp } from '../records/timestamps.ts';
import type { ResourceDefinition, ResourceTable } from '../resources/definition.ts';
import { SINGLETON_ID, vocabularyOf } from '../resources/definition.ts';
import type { Decision, Store } from '../store/store.ts';
import { NO_PLAN } from '../store/store.ts';

/** Makes each singleton that its defaults can make and that does not exist yet, each in a commit of its own. */
export async function ensureSingletons(resources: ResourceTable, shared: Store, logger: Logger): Promise<void> {
  for (const definition of resources.resources) {
    if (definition.singleton !== true || !madeFromDefaults(definition)) continue;
    try {
      // Made unless it exists, whoever made it: another process starting on the same database, or an earlier start.
      await shared.serve(NO_PLAN, (store) =>
        store.write((): Decision<void> => {
          if (store.get(definition.collection, SINGLETON_ID) !== undefined) return { changes: [], result: undefined };
          const vocabulary = vocabularyOf(definition, 'en');
          const next = fieldsToStore({ definition, vocabulary, mode: 'create', body: {}, store });
          const now = isoTimestamp();
          const record = recordToStore(definition, next, SINGLETON_ID, now, now);
          return {
            changes: [{ kind: 'put', collection: definition.collection, record, created: true }],
            result: undefined,
          };
        }),
      );
    } catch (error) {
      // Its defaults refused (a default naming a record that does not exist, a hook's refusal): a PUT makes it.
      if (!(error instanceof HttpError)) throw error;
      logger.warn(
        `the ${definition.singular} could not be made from its defaults (${error.message}); ` +
          `GET /v1/${vocabularyOf(definition, 'en').collection} is a 404 until a PUT makes it`,
      );
    }
  }
}

/** Whether every required property has a default, so that the record can be made before anyone writes it. */
function madeFromDefaults(definition: ResourceDefinition): boolean {
  return definition.fields.every((rule) => rule.required !== true || rule.default !== undefined);
}
