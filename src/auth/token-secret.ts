// The HMAC key that signs tokens (README: Configuration): TOKEN_SECRET when given; otherwise
// generated once and kept in DATA_DIR/token-secret with file mode 0600, so tokens
// survive a restart; for a memory-only app, generated per process.

import { randomBytes } from 'node:crypto';
import { chmod, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { writeFileAtomically } from '../store/atomic-file.ts';
import { StartupError } from '../store/open-store.ts';

export const TOKEN_SECRET_FILE = 'token-secret';
const SECRET_BYTES = 32;

export async function loadTokenSecret(configured: string | undefined, dataDir: string | null): Promise<string> {
  if (configured !== undefined) return configured;
  if (dataDir === null) return randomBytes(SECRET_BYTES).toString('base64url');
  const path = join(dataDir, TOKEN_SECRET_FILE);
  const existing = await readSecretFile(path);
  if (existing !== undefined) return existing;
  const secret = randomBytes(SECRET_BYTES).toString('base64url');
  await writeFileAtomically(path, `${secret}\n`);
  return secret;
}

/** Reads a kept secret (tightening its mode to 0600); undefined when there is none yet. */
export async function readSecretFile(path: string): Promise<string | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  const secret = text.trim();
  if (secret.length === 0)
    throw new StartupError(`the token secret file ${path} is empty; delete it to generate a new one`);
  await chmod(path, 0o600);
  return secret;
}
