// Who sees which events (README: Events): the same rule as reading the record — admins every
// collection; anyone with a token the collections whose `read` is `public` or `user`;
// owners the events of their own records where `read` is `owner` (auth/permissions.ts).
// Worked out once per resource table and role; only the owner's id differs per caller.

import type { Actor } from '../auth/permissions.ts';
import type { ResourceTable } from '../resources/definition.ts';
import type { Readable } from '../feed/feed-event.ts';

interface Sets {
  readonly everything: ReadonlySet<string>;
  readonly shared: ReadonlySet<string>;
  readonly owned: ReadonlySet<string>;
}

const setsByTable = new WeakMap<ResourceTable, Sets>();
const NONE: ReadonlySet<string> = new Set();

function setsOf(table: ResourceTable): Sets {
  let sets = setsByTable.get(table);
  if (sets === undefined) {
    const shared = table.resources.filter(
      (definition) => definition.access.read === 'public' || definition.access.read === 'user',
    );
    const owned = table.resources.filter(
      (definition) => definition.access.read === 'owner' && definition.ownership !== undefined,
    );
    sets = {
      everything: new Set(table.resources.map((definition) => definition.collection)),
      shared: new Set(shared.map((definition) => definition.collection)),
      owned: new Set(owned.map((definition) => definition.collection)),
    };
    setsByTable.set(table, sets);
  }
  return sets;
}

export function readableBy(actor: Actor, table: ResourceTable): Readable {
  const sets = setsOf(table);
  return actor.role === 'admin'
    ? { all: sets.everything, own: NONE, owner: actor.id }
    : { all: sets.shared, own: sets.owned, owner: actor.id };
}
