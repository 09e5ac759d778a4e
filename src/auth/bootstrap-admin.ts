// The administrator ensured at every start (CONTRACT §1): a user with ADMIN_EMAIL and
// role admin. Its password is ADMIN_PASSWORD; when that is unset and the account is
// new, a random password is generated, stored hashed, and returned to be printed once.
// An existing account with that email that is not an admin is never promoted: any user
// may change their own email, so promotion by email would let them become admin.

import { randomBytes } from 'node:crypto';
import { finishRecord } from '../handlers/write-record.js';
import type { Fields } from '../json.js';
import { hashPassword, verifyPassword } from '../passwords.js';
import { users } from '../resources/users.js';
import type { Store } from '../store/store.js';

export const ADMIN_NAME = 'Administrator';

export interface AdminBootstrap {
  /** The password generated for a new administrator, to print once. */
  readonly generatedPassword?: string;
  /** Why no administrator could be ensured, to log as a warning. */
  readonly warning?: string;
}

export async function ensureAdmin(store: Store, email: string, password: string | undefined): Promise<AdminBootstrap> {
  const existing = store.findIgnoringCase('users', 'email', email);
  const now = new Date().toISOString();
  if (existing === undefined) {
    const plain = password ?? randomBytes(12).toString('base64url');
    const fields: Fields = { name: ADMIN_NAME, email, password_hash: await hashPassword(plain), role: 'admin' };
    const record = finishRecord(users, fields, store.allocateId('users'), now, now);
    await store.commit([{ kind: 'put', collection: 'users', record }]);
    return password === undefined ? { generatedPassword: plain } : {};
  }
  if (existing['role'] !== 'admin') {
    return {
      warning:
        `the user ${existing.id} holding ADMIN_EMAIL ${email} is not an administrator and was left as it is; ` +
        'choose another ADMIN_EMAIL, or promote that user as an administrator',
    };
  }

  const next: Fields = { ...existing };
  const storedHash = existing['password_hash'];
  if (password !== undefined && !(typeof storedHash === 'string' && (await verifyPassword(password, storedHash)))) {
    next['password_hash'] = await hashPassword(password);
  }
  if (next['password_hash'] !== storedHash) {
    const record = finishRecord(users, next, existing.id, existing.created_at, now);
    await store.commit([{ kind: 'put', collection: 'users', record }]);
  }
  return {};
}
