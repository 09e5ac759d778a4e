// What a server runs on, opened once at its start: the settings, the resources, the store,
// the token secret, the administrator (README: Configuration) and the singletons, the services every
// request's handler may use (handlers/context.ts), and the webhook delivery worker (docs/webhooks.md).

import { setTimeout as sleep } from 'node:timers/promises';
import { Authenticator } from '../auth/authenticate.ts';
import { loadTokenSecret } from '../auth/token-secret.ts';
import type { Config } from '../config/config.ts';
import type { ServerOptions } from '../config/server-options.ts';
import { ConfigError, resolveConfig } from '../config/config.ts';
import { exampleResources } from '../declarations/example-domain.ts';
import { resolveResources } from '../declarations/resolve-resources.ts';
import { EventStreams } from '../events/event-streams.ts';
import type { Services } from '../handlers/context.ts';
import { BodyBudget } from '../http/body-budget.ts';
import { IdempotencyKeys } from '../http/idempotency.ts';
import { PageCache } from '../http/page-cache.ts';
import type { Logger } from '../logging/logger.ts';
import type { ResourceDefinition, ResourceTable } from '../resources/definition.ts';
import { openDatabase } from '../store/open-database.ts';
import { MemoryStore } from '../store/memory-store.ts';
import { openStore } from '../store/open-store.ts';
import type { Store } from '../store/store.ts';
import { StoreUnavailable } from '../store/store.ts';
import type { AdminBootstrap } from './bootstrap-admin.ts';
import { ensureAdmin } from './bootstrap-admin.ts';
import { ensureSingletons } from './bootstrap-singletons.ts';
import { KeyUse } from './key-use.ts';
import { basePathClash } from './routes.ts';
import { API_KEYS } from '../declarations/built-in-keys.ts';
import type { ProviderAuthenticator, ProviderSettings } from '../auth/provider-auth.ts';
import { WebhookWorker } from '../webhooks/webhook-worker.ts';

export interface Opened {
  readonly config: Config;
  readonly resources: ResourceTable;
  readonly services: Services;
  /** Set once a graceful shutdown has begun (services.isShuttingDown reads it). */
  readonly shutdown: { begun: boolean };
  /** Aborted when the server closes: an administrator still waiting for the database stops waiting. */
  readonly closing: AbortController;
  /**
   * The password generated for the administrator this start created (no adminPassword), until the embedding program
   * takes it (App.takeGeneratedAdminPassword); with a database not reached yet, set once it answers.
   */
  readonly generatedAdmin: { password: string | undefined };
  /** Delivers the change feed to the webhooks' URLs once started (App), until the server closes. */
  readonly webhooks: WebhookWorker;
}

/**
 * Opens everything a server needs; a start that fails releases the data directory it opened. `inHostServer`: the app
 * runs in a server plainrest did not make (createApp), whose timeouts it does not set, so a body read has a deadline of
 * its own (requestTimeoutMs).
 */
export async function openServices(options: ServerOptions, inHostServer: boolean): Promise<Opened> {
  const config = resolveConfig(options);
  const resources = await resolveResources(options.resources, options.hooks);
  const clash = basePathClash(config.basePath, resources);
  if (clash !== undefined) throw new ConfigError('basePath', clash);
  // The example dataset belongs to the example domain; declared resources start empty.
  const seed = config.seed && resources === exampleResources();
  const store =
    options.store ??
    (config.database !== undefined
      ? await openDatabase(config.database, resources, config.logger, config.events)
      : await openStore({ ...config, seed }, resources));
  store.describeEvents?.(resources);
  let authenticator: Authenticator;
  let adminReady: Promise<void>;
  let secret: string;
  const closing = new AbortController();
  const generatedAdmin: { password: string | undefined } = { password: undefined };
  try {
    // The token secret first: a start that fails on it must not have created (and
    // printed, then lost) a generated administrator password.
    secret = await loadTokenSecret(config.tokenSecret, config.dataDir);
    const users = resources.get('users') as ResourceDefinition;
    const provider =
      config.provider === undefined ? undefined : await providerAuthenticator(config.provider, users, store);
    const keyUse = new KeyUse(resources.get(API_KEYS) as ResourceDefinition, store, config.logger);
    authenticator = new Authenticator(secret, config.tokenTtlSeconds, {
      ...(provider === undefined ? {} : { provider }),
      keyUsed: keyUse.keyUsed,
    });
    if (config.provider !== undefined && config.provider.audience === undefined)
      config.logger.warn(
        'OIDC_AUDIENCE is unset: tokens the identity provider issues for any of its clients are accepted; ' +
          "set it to this API's",
      );
    const bootstrap = async (): Promise<AdminBootstrap> => {
      await ensureSingletons(resources, store, config.logger);
      const { adminEmail, adminPassword, logger, passwordHashCost } = config;
      const ensured = await ensureAdmin(users, store, adminEmail, adminPassword, logger, passwordHashCost);
      announceAdmin(ensured, config);
      generatedAdmin.password = ensured.generatedPassword;
      return ensured;
    };
    // A database not reached yet (README: Several processes): the administrator is ensured once it answers.
    adminReady =
      (store as Store).unavailable === undefined
        ? (await bootstrap()).passwordSynced
        : onceReachable(bootstrap, config.logger, closing.signal);
  } catch (error) {
    // Release the data directory (lock, journal) that this start opened.
    if (options.store === undefined) await store.close().catch(() => undefined);
    throw error;
  }
  // The search and sort indexes are built once the server is open, in slices: they hold up neither a start nor a list.
  if (store instanceof MemoryStore) store.prepareIndexes(resources).catch(() => undefined);
  const shutdown = { begun: false };
  const idempotencyKeys = new IdempotencyKeys(config.clock, secret);
  const pageCache = config.caches ? new PageCache() : undefined;
  const bodyLimits = {
    maxBytes: config.maxBodyBytes,
    budget: new BodyBudget(config.maxBodyBytesInFlight),
    timeoutMs: inHostServer ? config.requestTimeoutMs : undefined,
  };
  const eventStreams =
    store.feed === undefined
      ? undefined
      : new EventStreams(store.feed, resources, config.events, config.caches, config.basePath);
  const webhooks = new WebhookWorker(store, resources, config);
  const services: Services = {
    store,
    config,
    authenticator,
    idempotencyKeys,
    pageCache,
    bodyLimits,
    adminReady,
    eventStreams,
    isShuttingDown: () => shutdown.begun,
    preparations: webhooks.preparations,
  };
  return { config, resources, services, shutdown, closing, generatedAdmin, webhooks };
}

/** The provider's tokens' checker; its modules are loaded only for a server that has a provider. */
async function providerAuthenticator(
  settings: ProviderSettings,
  users: ResourceDefinition,
  store: Store,
): Promise<ProviderAuthenticator> {
  const [{ ProviderAuthenticator }, { ProviderKeys }, { providerUserFinder }] = await Promise.all([
    import('../auth/provider-auth.ts'),
    import('../auth/provider-keys.ts'),
    import('./provider-users.ts'),
  ]);
  const keys = new ProviderKeys({ issuer: settings.issuer, jwksUrl: settings.jwksUrl });
  return new ProviderAuthenticator(settings, keys, providerUserFinder(users, store));
}

function announceAdmin({ generatedPassword, warning }: AdminBootstrap, config: Config): void {
  if (warning !== undefined) config.logger.warn(warning);
  if (generatedPassword !== undefined) {
    config.logger.info(
      `created the administrator ${config.adminEmail} with the generated password ${generatedPassword} ` +
        '(shown only now; set ADMIN_PASSWORD to choose one)',
    );
  }
}

/**
 * Runs `bootstrap` once the store answers, trying again every second while it answers 503; settles when the password is
 * in place.
 */
async function onceReachable(
  bootstrap: () => Promise<AdminBootstrap>,
  logger: Logger,
  closing: AbortSignal,
): Promise<void> {
  while (!closing.aborted) {
    try {
      return await (
        await bootstrap()
      ).passwordSynced;
    } catch (error) {
      if (!(error instanceof StoreUnavailable)) {
        logger.error(`the administrator could not be ensured: ${String(error)}`);
        return;
      }
      await sleep(1000, undefined, { signal: closing }).catch(() => undefined);
    }
  }
}
