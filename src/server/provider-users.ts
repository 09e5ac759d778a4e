// The plainrest user an OpenID Connect provider's person is (README: Provider tokens): found by `provider_identity`
// (the token's `iss` and `sub`), or made on first sight with the token's name, its email when it has one plainrest can
// keep, and the declared defaults, in a write of its own. Processes sharing a database that see a new person at once
// make one user: the identity is unique.

import type { ProviderProfile, UserFinder } from '../auth/provider-auth.ts';
import { MatchBudget } from '../patterns/linear-pattern.ts';
import { PROVIDER_IDENTITY } from '../declarations/built-in-users.ts';
import type { Fields, StoredRecord } from '../records/json.ts';
import type { FieldRule, ResourceDefinition } from '../resources/definition.ts';
import { checkString } from '../resources/scalar-checks.ts';
import type { Decision, RecordReads, Store } from '../store/store.ts';
import { NO_PLAN } from '../store/store.ts';
import { serverMadeUser } from './bootstrap-admin.ts';

/** Finds the user a provider's token names, making them on first sight. */
export function providerUserFinder(users: ResourceDefinition, store: Store): UserFinder {
  return async (profile) => {
    const known = await store.serve(NO_PLAN, (reads) => userWithIdentity(reads, profile.identity));
    if (known !== undefined) return known.id as number; // users' ids are integers (declarations/check-ids.ts)
    const email = keptEmail(users, profile.email);
    return store.serve(NO_PLAN, (writes) =>
      writes.write((): Decision<number | { refused: string }> => {
        // Made meanwhile by another request, or another process.
        const made = userWithIdentity(writes, profile.identity);
        if (made !== undefined) return { changes: [], result: made.id as number };
        // A user without an email clashes with nobody; an address another user holds is theirs, not this person's.
        if (email !== undefined && writes.findIgnoringCase('users', 'email', email) !== undefined)
          return { changes: [], result: { refused: `the email ${email} is already another plainrest user's` } };
        const record = newUser(users, profile, email, writes.allocateId('users'));
        return { changes: [{ kind: 'put', collection: 'users', record, created: true }], result: record.id as number };
      }),
    );
  };
}

/**
 * The token's email, if users' email rule accepts it (an address, within its length and any declared pattern). A
 * service's token has none, and a claim that is no address plainrest keeps makes a user without one rather than a
 * refusal (README: Provider tokens).
 */
function keptEmail(users: ResourceDefinition, email: string | undefined): string | undefined {
  const rule = ruleOf(users, 'email');
  if (email === undefined || rule === undefined) return undefined;
  return checkString(rule, email, new MatchBudget(), () => undefined) ? email : undefined;
}

function userWithIdentity(reads: RecordReads, identity: string): StoredRecord | undefined {
  const query = { filters: [{ field: PROVIDER_IDENTITY, value: identity }], sort: [], offset: 0, limit: 1 };
  return reads.query('users', query).records[0];
}

/** The profile's user: its name cut, between characters, to what users' name may hold; its email only if kept. */
function newUser(
  users: ResourceDefinition,
  profile: ProviderProfile,
  email: string | undefined,
  id: number,
): StoredRecord {
  const longest = ruleOf(users, 'name')?.maxLength;
  const name = longest === undefined ? profile.name : Array.from(profile.name).slice(0, longest).join('');
  const fields: Fields = { name, role: 'user', [PROVIDER_IDENTITY]: profile.identity };
  if (email !== undefined) fields['email'] = email;
  return serverMadeUser(users, fields, id);
}

function ruleOf(users: ResourceDefinition, name: string): FieldRule | undefined {
  return users.fields.find((rule) => rule.name === name);
}
