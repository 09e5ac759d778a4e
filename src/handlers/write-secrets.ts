// The secrets a write stores but never shows (README: Authentication and permissions, API keys): a password becomes
// its scrypt hash, the current hash kept when the password is unchanged so a repeated PUT changes nothing; an API key's
// secret is made by the server and stored as its SHA-256, a webhook's signing secret (docs/webhooks.md) as it is.

import { randomBytes } from 'node:crypto';
import { newKeySecret } from '../auth/api-keys.ts';
import { WEBHOOK_SECRET_PREFIX } from '../declarations/built-in-webhooks.ts';
import { hashPassword, verifyPassword } from '../auth/passwords.ts';
import type { Fields, StoredRecord } from '../records/json.ts';
import type { FieldRule, ResourceDefinition } from '../resources/definition.ts';

/** Rule name → the value to keep in its `storedAs` field (a password hash). */
export type Secrets = ReadonlyMap<string, { readonly plain: string; readonly stored: string }>;

/** Replaces each plaintext secret by what is to be stored for it, and keeps what the server made (an API key's). */
export function withSecrets(definition: ResourceDefinition, next: Fields, secrets: Secrets): Fields {
  const result: Fields = { ...next };
  for (const rule of definition.fields) {
    const secret = secrets.get(rule.name);
    if (secret === undefined || rule.storedAs === undefined) continue;
    if (rule.issued === undefined && result[rule.name] !== secret.plain) continue;
    delete result[rule.name];
    result[rule.storedAs] = secret.stored;
  }
  return result;
}

/**
 * The secrets the server makes for a new record, each with what is kept of it (an API key's hash, a webhook's secret
 * itself); undefined when it makes none.
 */
export function issuedSecrets(definition: ResourceDefinition): Secrets | undefined {
  const rules = definition.fields.filter((rule) => rule.issued !== undefined);
  if (rules.length === 0) return undefined;
  return new Map(rules.map((rule) => [rule.name, rule.issued === 'api-key' ? newKeySecret() : newSigningSecret()]));
}

/** `whsec_` and 32 random bytes in base64 (Standard Webhooks' symmetric secret), kept as it is: it signs. */
function newSigningSecret(): { readonly plain: string; readonly stored: string } {
  const plain = WEBHOOK_SECRET_PREFIX + randomBytes(32).toString('base64');
  return { plain, stored: plain };
}

/** The hashed passwords of a write and the secrets made for it, together. */
export function withIssued(hashed: Secrets | undefined, issued: Secrets | undefined): Secrets | undefined {
  if (issued === undefined) return hashed;
  return hashed === undefined ? issued : new Map([...hashed, ...issued]);
}

/** A new hash at `cost`, or the current one when the password is unchanged (so a repeated PUT changes nothing). */
export async function hashPasswords(
  rules: readonly FieldRule[],
  next: Fields,
  current: StoredRecord | undefined,
  cost: number,
): Promise<Secrets> {
  const secrets = new Map<string, { plain: string; stored: string }>();
  for (const rule of rules) {
    const plain = next[rule.name] as string;
    const currentHash = rule.storedAs === undefined ? undefined : current?.[rule.storedAs];
    const unchanged = typeof currentHash === 'string' && (await verifyPassword(plain, currentHash));
    secrets.set(rule.name, { plain, stored: unchanged ? currentHash : await hashPassword(plain, cost) });
  }
  return secrets;
}
