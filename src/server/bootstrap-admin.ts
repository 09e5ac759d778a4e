// The administrator ensured at every start (README: Configuration): a user with ADMIN_EMAIL and role admin. Its
// password is ADMIN_PASSWORD; when that is unset and the account is new, a random password is generated, stored
// hashed, and returned to be printed once.

import { randomBytes } from 'node:crypto';
import { recordToStore } from '../handlers/write-record.ts';
import type { Fields, StoredRecord } from '../records/json.ts';
import { hashPassword, verifyPassword } from '../auth/passwords.ts';
import type { ResourceDefinition } from '../resources/definition.ts';
import type { Logger } from '../logging/logger.ts';
import type { Decision, Store } from '../store/store.ts';
import { NO_PLAN } from '../store/store.ts';
import { isoTimestamp } from '../records/timestamps.ts';

export const ADMIN_NAME = 'Administrator';

export interface AdminBootstrap {
  /** The password generated for a new administrator, to print once. */
  readonly generatedPassword?: string;
  /** Why no administrator could be ensured, to log as a warning. */
  readonly warning?: string;
  /** Settles once the stored password matches ADMIN_PASSWORD (never rejects; a failure is logged). */
  readonly passwordSynced: Promise<void>;
}

const SYNCED: Promise<void> = Promise.resolve();

/** The administrator of `email`, its password hashed at scrypt cost `cost` when it is set. */
export async function ensureAdmin(
  users: ResourceDefinition,
  shared: Store,
  email: string,
  password: string | undefined,
  logger: Logger,
  cost: number,
): Promise<AdminBootstrap> {
  // Several processes may start on one database at once.
  const existing = await shared.serve(NO_PLAN, (store) => store.findIgnoringCase('users', 'email', email));
  if (existing === undefined) {
    const plain = password ?? randomBytes(12).toString('base64url');
    const fields: Fields = { name: ADMIN_NAME, email, password_hash: await hashPassword(plain, cost), role: 'admin' };
    // Created unless another process created it meanwhile (then that one's password stands).
    const created = await shared.serve(NO_PLAN, (store) =>
      store.write((): Decision<boolean> => {
        if (store.findIgnoringCase('users', 'email', email) !== undefined) return { changes: [], result: false };
        const record = serverMadeUser(users, fields, store.allocateId('users'));
        return { changes: [{ kind: 'put', collection: 'users', record, created: true }], result: true };
      }),
    );
    if (created)
      return password === undefined ? { generatedPassword: plain, passwordSynced: SYNCED } : { passwordSynced: SYNCED };
    return { passwordSynced: SYNCED };
  }
  // Never promoted: any user may change their own email, so promotion by email would let them become admin.
  if (existing['role'] !== 'admin') {
    return {
      passwordSynced: SYNCED,
      warning:
        `the user ${existing.id} holding ADMIN_EMAIL ${email} is not an administrator and was left as it is; ` +
        'choose another ADMIN_EMAIL, or promote that user as an administrator',
    };
  }

  if (password === undefined) return { passwordSynced: SYNCED };
  // Checking the password against the stored hash costs a scrypt, so it runs after the start, in the background;
  // logins wait for `passwordSynced`, so none can see the password being replaced.
  const passwordSynced = replacePasswordIfChanged(users, shared, existing.id as number, password, cost).catch(
    (error: unknown) => {
      logger.error(`could not set the administrator's password from ADMIN_PASSWORD: ${String(error)}`);
    },
  );
  return { passwordSynced };
}

async function replacePasswordIfChanged(
  users: ResourceDefinition,
  shared: Store,
  id: number,
  password: string,
  cost: number,
): Promise<void> {
  const before = await shared.serve(NO_PLAN, (store) => store.get('users', id));
  const storedHash = before?.['password_hash'];
  if (typeof storedHash === 'string' && (await verifyPassword(password, storedHash))) return;
  const hash = await hashPassword(password, cost);
  // Decided on the record as it is after the slow hashing: it may have changed meanwhile.
  await shared.serve(NO_PLAN, (store) =>
    store.write((): Decision<void> => {
      const current = store.get('users', id);
      if (current === undefined) return { changes: [], result: undefined };
      const record = recordToStore(users, { ...current, password_hash: hash }, id, current.created_at, isoTimestamp());
      return { changes: [{ kind: 'put', collection: 'users', record }], result: undefined };
    }),
  );
}

/**
 * A user the server makes, not a request (the administrator, a provider's person on first sight): the properties a
 * declaration adds to users at their defaults, then `given`.
 */
export function serverMadeUser(users: ResourceDefinition, given: Fields, id: number): StoredRecord {
  const fields: Fields = {};
  for (const rule of users.fields) if (rule.default !== undefined) fields[rule.name] = rule.default;
  const now = isoTimestamp();
  return recordToStore(users, { ...fields, ...given }, id, now, now);
}
