// The addresses a webhook may not be delivered to unless WEBHOOKS_ALLOW_PRIVATE=true (docs/webhooks.md: Safe targets):
// what a server-side request forgery would reach (OWASP API7:2023), by the special-purpose registries (RFC 6890; RFC
// 1918, 3927, 6598, 5771; RFC 4193, 4291); documentation ranges (RFC 5737, 3849) reach nothing and are allowed. An
// IPv4-mapped IPv6 address (::ffff:127.0.0.1, RFC 4291 §2.5.5.2) is judged as the IPv4 address it maps.

import { BlockList, isIP } from 'node:net';

/** What kind of address it is, to name it in a refusal. */
export type ForbiddenKind = 'unspecified' | 'loopback' | 'private' | 'link-local' | 'multicast' | 'reserved';

/** Each kind's ranges, as [network, prefix length]; checked in this order (loopback before IPv4-compatible `::/96`). */
const RANGES: readonly (readonly [ForbiddenKind, 'ipv4' | 'ipv6', readonly (readonly [string, number])[]])[] = [
  ['unspecified', 'ipv4', [['0.0.0.0', 8]]],
  ['loopback', 'ipv4', [['127.0.0.0', 8]]],
  [
    'private',
    'ipv4',
    [
      ['10.0.0.0', 8],
      ['172.16.0.0', 12],
      ['192.168.0.0', 16],
      ['100.64.0.0', 10],
    ],
  ],
  ['link-local', 'ipv4', [['169.254.0.0', 16]]],
  ['multicast', 'ipv4', [['224.0.0.0', 4]]],
  [
    'reserved',
    'ipv4',
    [
      ['240.0.0.0', 4],
      ['192.0.0.0', 24],
      ['198.18.0.0', 15],
    ],
  ],
  ['unspecified', 'ipv6', [['::', 128]]],
  ['loopback', 'ipv6', [['::1', 128]]],
  [
    'private',
    'ipv6',
    [
      ['fc00::', 7],
      ['fec0::', 10],
    ],
  ],
  ['link-local', 'ipv6', [['fe80::', 10]]],
  ['multicast', 'ipv6', [['ff00::', 8]]],
  [
    'reserved',
    'ipv6',
    [
      ['::', 96],
      ['100::', 64],
    ],
  ],
];

const LISTS: readonly (readonly [ForbiddenKind, BlockList])[] = RANGES.map(([kind, family, networks]) => {
  const list = new BlockList();
  for (const [network, prefix] of networks) list.addSubnet(network, prefix, family);
  return [kind, list] as const;
});

/**
 * The kind of forbidden address `address` is (an IPv4 or IPv6 literal, without brackets), or undefined for one a
 * webhook may reach; anything that is no address at all counts as `reserved`.
 */
export function forbiddenKind(address: string): ForbiddenKind | undefined {
  const version = isIP(address);
  if (version === 0) return 'reserved';
  const family = version === 4 ? 'ipv4' : 'ipv6';
  // node:net's BlockList judges an IPv4-mapped IPv6 address by the IPv4 rules as well.
  for (const [kind, list] of LISTS) if (list.check(address, family)) return kind;
  return undefined;
}
