// Where a webhook may be delivered (docs/webhooks.md: Safe targets): an absolute https: URL (http: where
// WEBHOOKS_ALLOW_HTTP=true) without credentials, whose name resolves only to addresses address-ranges.ts allows (any,
// where WEBHOOKS_ALLOW_PRIVATE=true). Checked when a subscription is written (422) and again as each connection is
// made, through the `lookup` the request is given: the address connected to is the one checked (no DNS rebinding).

import type { LookupAddress, LookupAllOptions, LookupOneOptions } from 'node:dns';
import { lookup as dnsLookup } from 'node:dns';
import { isIP } from 'node:net';
import { HttpError, validationError } from '../errors/errors.ts';
import { forbiddenKind } from './address-ranges.ts';

/** The operator's settings (README: Configuration): WEBHOOKS_ALLOW_HTTP, WEBHOOKS_ALLOW_PRIVATE. */
export interface TargetSettings {
  readonly allowHttp: boolean;
  readonly allowPrivate: boolean;
}

/** The field a refusal names. */
const URL_FIELD = 'url';

/** A URL that may not be used, with the code and message the 422 gives (and a delivery's `error` repeats). */
export class TargetRefused extends Error {
  readonly code: string;

  constructor(code: string, message: string) {
    super(message);
    this.code = code;
  }

  /**
   * As a request's answer: 422 `forbidden_target` for an address, else `validation_failed`, naming `url` (the detail
   * counts the fields, as every 422's: README, Errors).
   */
  toHttpError(): HttpError {
    const errors = [{ field: URL_FIELD, code: this.code, message: this.message }];
    if (this.code !== 'forbidden_target') return validationError(errors);
    return new HttpError('forbidden_target', validationError(errors).message, { errors });
  }
}

/** Checks `url` as a subscription is written: its form, then every address its name resolves to. */
export async function requireAllowedTarget(url: string, settings: TargetSettings): Promise<void> {
  const host = allowedHost(url, settings);
  if (settings.allowPrivate) return;
  const addresses = isIP(host) !== 0 ? [host] : await resolveAll(host);
  for (const address of addresses) requireAllowedAddress(address, host);
}

/** The host of an absolute http(s) URL the settings allow (without an IPv6 literal's brackets), else TargetRefused. */
export function allowedHost(url: string, settings: TargetSettings): string {
  const parsed = URL.parse(url);
  if (parsed === null)
    throw new TargetRefused('invalid_format', 'must be an absolute URL such as https://example.com/');
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new TargetRefused('unsupported_scheme', `must be an https: URL, not ${parsed.protocol}`);
  if (parsed.protocol === 'http:' && !settings.allowHttp)
    throw new TargetRefused('insecure_scheme', 'must be an https: URL (http: needs WEBHOOKS_ALLOW_HTTP=true)');
  if (parsed.username !== '' || parsed.password !== '')
    throw new TargetRefused(
      'credentials_in_url',
      'must hold no user name or password: every administrator reads the URL; the signature authenticates',
    );
  return parsed.hostname.startsWith('[') ? parsed.hostname.slice(1, -1) : parsed.hostname;
}

/** Every address `host` resolves to (node:dns lookup, as a connection would), or TargetRefused when there is none. */
async function resolveAll(host: string): Promise<string[]> {
  const found = await new Promise<readonly LookupAddress[] | undefined>((resolve) =>
    dnsLookup(host, { all: true }, (error, addresses) => resolve(error === null ? addresses : undefined)),
  );
  if (found === undefined || found.length === 0)
    throw new TargetRefused('unresolvable_host', `names a host that does not resolve: ${host}`);
  return found.map((entry) => entry.address);
}

function requireAllowedAddress(address: string, host: string): void {
  const kind = forbiddenKind(address);
  if (kind === undefined) return;
  const shown = address === host ? address : `${host}, which resolves to ${address}`;
  throw new TargetRefused(
    'forbidden_target',
    `names ${shown}, ${/^[aeiou]/.test(kind) ? 'an' : 'a'} ${kind} address (WEBHOOKS_ALLOW_PRIVATE=true allows it)`,
  );
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * A `lookup` for node:http's request: node:dns's, then every address checked as requireAllowedTarget checks them, so
 * the connection goes only to an address allowed when it is made. (A URL naming an address needs no lookup: its
 * address is checked before the request, by the caller.)
 */
export function guardedLookup(
  settings: TargetSettings,
): (host: string, options: LookupOneOptions | LookupAllOptions, callback: LookupCallback) => void {
  return (host, options, callback) => {
    dnsLookup(host, { ...options, all: true }, (error, addresses) => {
      if (error !== null) return callback(error, []);
      try {
        if (!settings.allowPrivate) for (const { address } of addresses) requireAllowedAddress(address, host);
      } catch (refused) {
        return callback(refused as NodeJS.ErrnoException, []);
      }
      if (options.all === true) return callback(null, addresses);
      const first = addresses[0];
      if (first === undefined) return callback(new Error(`${host} resolves to no address`), []);
      callback(null, first.address, first.family);
    });
  };
}

/** Checks an address literal a URL names (no lookup is made for it), as the lookup above checks resolved ones. */
export function requireAllowedLiteral(host: string, settings: TargetSettings): void {
  if (!settings.allowPrivate && isIP(host) !== 0) requireAllowedAddress(host, host);
}
