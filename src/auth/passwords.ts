// Password storage: salted scrypt (RFC 7914) from node:crypto, never the password
// itself. A stored hash reads `scrypt$<N>$<r>$<p>$<salt>$<key>` (base64url), so the
// cost can be raised later without breaking the hashes already stored.

import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

/** N: 16 MiB of memory and about 50 ms per hash on a 2-core machine (the passwordHashCost option's default). */
export const PASSWORD_HASH_COST = 16384;
const BLOCK_SIZE = 8;
const PARALLELISM = 1;
const KEY_LENGTH = 32;
const SALT_LENGTH = 16;

function derive(password: string, salt: Buffer, cost: number, blockSize: number, parallelism: number): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const options = { N: cost, r: blockSize, p: parallelism, maxmem: 256 * cost * blockSize };
    scrypt(password.normalize('NFC'), salt, KEY_LENGTH, options, (error, key) =>
      error ? reject(error) : resolve(key),
    );
  });
}

/** A new hash of `password` at scrypt cost `cost` (N, a power of two), which the hash records. */
export async function hashPassword(password: string, cost: number): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(password, salt, cost, BLOCK_SIZE, PARALLELISM);
  return ['scrypt', cost, BLOCK_SIZE, PARALLELISM, salt.toString('base64url'), key.toString('base64url')].join('$');
}

/** A hash at the default cost of a random string nobody knows, written here so that no server need make it. */
const NOTHING_KNOWN = 'scrypt$16384$8$1$QrNUadZbO0yUnY4T_Jx9GQ$0v06pvDMNoRMBg6FkZ5ukGmora6Q4OA4DFM-AmLcCvs';
const unknowable = new Map<number, Promise<string>>([[PASSWORD_HASH_COST, Promise.resolve(NOTHING_KNOWN)]]);

/**
 * A valid hash, at `cost`, of a random string nobody knows, made once per cost. An unknown email is checked against it,
 * so a wrong email and a wrong password take the same time (OWASP API2: Broken Authentication).
 */
export function hashOfNothingKnown(cost: number): Promise<string> {
  const made = unknowable.get(cost) ?? hashPassword(randomBytes(SALT_LENGTH).toString('base64url'), cost);
  unknowable.set(cost, made);
  return made;
}

/** True when `password` produces `stored`; false for a wrong password or a malformed hash. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, cost, blockSize, parallelism, salt, key] = stored.split('$');
  if (scheme !== 'scrypt' || salt === undefined || key === undefined) return false;
  const expected = Buffer.from(key, 'base64url');
  if (expected.length !== KEY_LENGTH) return false;
  try {
    const actual = await derive(
      password,
      Buffer.from(salt, 'base64url'),
      Number(cost),
      Number(blockSize),
      Number(parallelism),
    );
    return timingSafeEqual(actual, expected);
  } catch {
    return false; // cost parameters scrypt refuses: a damaged hash matches nothing
  }
}
