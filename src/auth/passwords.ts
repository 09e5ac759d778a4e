// Password storage: salted scrypt (RFC 7914) from node:crypto, never the password
// itself. A stored hash reads `scrypt$<N>$<r>$<p>$<salt>$<key>` (base64url), so the
// cost can be raised later without breaking the hashes already stored.

import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

const COST = 16384; // N: 16 MiB of memory and about 50 ms per hash on a 2-core machine
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

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(SALT_LENGTH);
  const key = await derive(password, salt, COST, BLOCK_SIZE, PARALLELISM);
  return ['scrypt', COST, BLOCK_SIZE, PARALLELISM, salt.toString('base64url'), key.toString('base64url')].join('$');
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
