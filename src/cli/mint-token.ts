// Minting a token from the command line (`plainrest token <email>`), for scripts and constrained deployments where
// posting a password is awkward. It reads the users snapshot and the token secret and writes nothing, so it is safe
// beside a running server; whoever can read DATA_DIR can do this, which is why the secret file is 0600.

import { join } from 'node:path';
import { Authenticator } from '../auth/authenticate.ts';
import { readSecretFile, TOKEN_SECRET_FILE } from '../auth/token-secret.ts';
import type { ServerOptions } from '../config/server-options.ts';
import { resolveConfig } from '../config/config.ts';
import { withoutPassword } from './banner.ts';
import { MemoryStore } from '../store/memory-store.ts';
import { databaseProblem, findUserInDatabase } from '../store/open-database.ts';
import { readDataDirectory } from '../store/data-directory.ts';
import { resolveResources } from '../declarations/resolve-resources.ts';

export class TokenMintError extends Error {}

export async function mintToken(
  options: ServerOptions,
  email: string,
): Promise<{ token: string; userId: number; expiresIn: number }> {
  const config = resolveConfig(options);
  if (config.database !== undefined && config.tokenSecret !== undefined)
    return mintFromDatabase(config.database, config.tokenSecret, config.tokenTtlSeconds, email);
  if (config.dataDir === null) throw new TokenMintError('a token can be minted only from a data directory');
  const dataDir = `the data directory ${config.dataDir} (--data-dir, DATA_DIR)`;
  const startOnce = `start the server once with it, or name another with --data-dir`;
  const resources = await resolveResources(options.resources, options.hooks);
  const contents = await readDataDirectory(config.dataDir, resources).catch((error: unknown) => {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      throw new TokenMintError(`${dataDir} does not exist; ${startOnce}`);
    throw new TokenMintError(`cannot read ${dataDir}: ${String((error as Error).message)}`);
  });
  const users = contents.collections.get('users');
  if (users === undefined) throw new TokenMintError(`${dataDir} holds no users yet; ${startOnce}`);
  const store = new MemoryStore(new Map([['users', users]]));
  const user = store.findIgnoringCase('users', 'email', email);
  if (user === undefined) throw new TokenMintError(`no user has the email ${email} in ${dataDir}`);
  const secret = config.tokenSecret ?? (await readSecretFile(join(config.dataDir, TOKEN_SECRET_FILE)));
  if (secret === undefined)
    throw new TokenMintError(`${dataDir} holds no token secret yet; ${startOnce}, or set TOKEN_SECRET`);
  const { token, expiresIn } = new Authenticator(secret, config.tokenTtlSeconds).issue(user.id as number);
  return { token, userId: user.id as number, expiresIn };
}

/**
 * With DATABASE_URL: the user is read from the database, and the secret is TOKEN_SECRET, which every server sharing
 * that database signs with (resolveConfig requires it).
 */
async function mintFromDatabase(
  url: string,
  secret: string,
  ttlSeconds: number,
  email: string,
): Promise<{ token: string; userId: number; expiresIn: number }> {
  const database = `the database ${withoutPassword(url)} (--database-url, DATABASE_URL)`;
  const user = await findUserInDatabase(url, email).catch((error: unknown) => {
    const problem = databaseProblem(error);
    if (problem === undefined) throw error;
    throw new TokenMintError(`${database} ${problem}`);
  });
  if (user === 'no-users') throw new TokenMintError(`${database} holds no users yet; start the server once with it`);
  if (user === undefined) throw new TokenMintError(`no user has the email ${email} in ${database}`);
  // Issuing reads no store: the token names the user, whom every request reads afresh.
  const { token, expiresIn } = new Authenticator(secret, ttlSeconds).issue(user.id as number);
  return { token, userId: user.id as number, expiresIn };
}
