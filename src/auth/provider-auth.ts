// A caller known by an OpenID Connect provider's token (README: Provider tokens): the token verified with the
// provider's keys (provider-token.ts, provider-keys.ts), then its subject made a plainrest user on first sight, and its
// role read from the token's role claim.

import type { ProviderKeys } from './provider-keys.ts';
import { ProviderUnreachable } from './provider-keys.ts';
import type { ProviderKey, ProviderTokenResult } from './provider-token.ts';
import { LEEWAY_SECONDS, verifyProviderToken } from './provider-token.ts';
import type { Role } from './permissions.ts';

/** A provider whose tokens are accepted (README: Provider tokens; config.ts reads it from the settings). */
export interface ProviderSettings {
  readonly issuer: string;
  readonly jwksUrl: string | undefined;
  readonly audience: string | undefined;
  readonly roleClaim: string;
}

/** What a provider's token says of the person, to make them a plainrest user. */
export interface ProviderProfile {
  /** `iss` and `sub`, with a space between: who they are, for good. */
  readonly identity: string;
  /** `name`, else `preferred_username`, else `sub`. */
  readonly name: string;
  /** `email`, unless absent (a service's token) or `email_verified` is false. */
  readonly email: string | undefined;
}

/** The id of the plainrest user the profile names, made on first sight; or why none can be. */
export type UserFinder = (profile: ProviderProfile) => Promise<number | { readonly refused: string }>;

/** `exp`: until when the token verifies, in seconds since the epoch: its `exp` with the leeway it was verified with. */
export type ProviderVerdict =
  | { readonly ok: true; readonly userId: number; readonly role: Role; readonly exp: number }
  | { readonly ok: false; readonly reason: string; readonly unreachable?: true };

const SUBJECT = /^[\x20-\x7e]{1,255}$/;
const NO_KEYS: ReadonlyMap<string, ProviderKey> = new Map();

export class ProviderAuthenticator {
  readonly #settings: ProviderSettings;
  readonly #keys: ProviderKeys;
  readonly #findUser: UserFinder;

  constructor(settings: ProviderSettings, keys: ProviderKeys, findUser: UserFinder) {
    this.#settings = settings;
    this.#keys = keys;
    this.#findUser = findUser;
  }

  /**
   * The verdict on `token` as of `now` (seconds): the user it names, or why none; never throws for a bad token or an
   * unreachable provider.
   */
  async verify(token: string, now: number): Promise<ProviderVerdict> {
    const expected = { issuer: this.#settings.issuer, audience: this.#settings.audience };
    // What can be refused without a key (its size, its shape, its header) is, before the provider is asked.
    const shape = verifyProviderToken(token, NO_KEYS, expected, now);
    if (shape.ok === false) return shape;
    let result: ProviderTokenResult;
    try {
      result = verifyProviderToken(token, await this.#keys.current(), expected, now);
      // A key not seen yet: the provider may have rotated its keys.
      if (result.ok === 'unknown-key')
        result = verifyProviderToken(token, await this.#keys.afterUnknownKey(), expected, now);
    } catch (error) {
      if (error instanceof ProviderUnreachable) return { ok: false, reason: error.message, unreachable: true };
      throw error;
    }
    if (result.ok === 'unknown-key')
      return { ok: false, reason: 'the token was signed with a key the provider has not' };
    if (result.ok === false) return result;
    const { claims, subject } = result;
    // OpenID Connect Core 1.0 §2: `sub` is at most 255 ASCII characters.
    if (!SUBJECT.test(subject)) return { ok: false, reason: 'the token names a subject (sub) plainrest does not keep' };
    const text = (value: unknown): string | undefined =>
      typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
    const profile: ProviderProfile = {
      identity: `${this.#settings.issuer} ${subject}`,
      name: text(claims['name']) ?? text(claims['preferred_username']) ?? subject,
      // An address the provider says it has not verified is nobody's yet (OpenID Connect Core 1.0 §5.1): not kept.
      email: claims['email_verified'] === false ? undefined : text(claims['email']),
    };
    const found = await this.#findUser(profile);
    if (typeof found !== 'number') return { ok: false, reason: found.refused };
    const roles = claims[this.#settings.roleClaim];
    const admin = roles === 'admin' || (Array.isArray(roles) && roles.includes('admin'));
    return { ok: true, userId: found, role: admin ? 'admin' : 'user', exp: (claims['exp'] as number) + LEEWAY_SECONDS };
  }
}
