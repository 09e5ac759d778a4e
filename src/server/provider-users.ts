// The plainrest user an OpenID Connect provider's person is (README: Provider tokens): found by `provider_identity`
// (the token's `iss` and `sub`), or made on first sight with the token's name and email and the declared defaults, in
// a write of its own. Processes sharing a database that see a new person at once make one user: the identity is unique.

import type { ProviderProfile, UserFinder } from '../auth/provider-auth.ts';
import { PROVIDER_IDENTITY } from '../declarations/built-in-users.ts';
import type { StoredRecord } from '../records/json.ts';
import type { FieldRule, ResourceDefinition } from '../resources/definition.ts';
import { EMAIL_PATTERN } from '../resources/scalar-checks.ts';
import type { Decision, RecordReads, Store } from '../store/store.ts';
import { NO_PLAN } from '../store/store.ts';
import { serverMadeUser } from './bootstrap-admin.ts';

/** Finds the user a provider's token names, making them on first sight. */
export function providerUserFinder(users: ResourceDefinition, store: Store): UserFinder {
  return async (profile) => {
    const known = await store.serve(NO_PLAN, (reads) => userWithIdentity(reads, profile.identity));
    if (known !== undefined) return known.id;
    const { email } = profile;
    const longest = ruleOf(users, 'email')?.maxLength ?? Number.POSITIVE_INFINITY;
    if (email === undefined || email.length > longest || !EMAIL_PATTERN.test(email))
      return { refused: 'the token carries no email address plainrest can keep, which a new user needs' };
    return store.serve(NO_PLAN, (writes) =>
      writes.write((): Decision<number | { refused: string }> => {
        // Made meanwhile by another request, or another process.
        const made = userWithIdentity(writes, profile.identity);
        if (made !== undefined) return { changes: [], result: made.id };
        if (writes.findIgnoringCase('users', 'email', email) !== undefined)
          return { changes: [], result: { refused: `the email ${email} is already another plainrest user's` } };
        const record = newUser(users, profile, email, writes.allocateId('users'));
        return { changes: [{ kind: 'put', collection: 'users', record, created: true }], result: record.id };
      }),
    );
  };
}

function userWithIdentity(reads: RecordReads, identity: string): StoredRecord | undefined {
  const query = { filters: [{ field: PROVIDER_IDENTITY, value: identity }], sort: [], offset: 0, limit: 1 };
  return reads.query('users', query).records[0];
}

/** The profile's user: its name cut, between characters, to what users' name may hold. */
function newUser(users: ResourceDefinition, profile: ProviderProfile, email: string, id: number): StoredRecord {
  const longest = ruleOf(users, 'name')?.maxLength;
  const name = longest === undefined ? profile.name : Array.from(profile.name).slice(0, longest).join('');
  return serverMadeUser(users, { name, email, role: 'user', [PROVIDER_IDENTITY]: profile.identity }, id);
}

function ruleOf(users: ResourceDefinition, name: string): FieldRule | undefined {
  return users.fields.find((rule) => rule.name === name);
}
