// The addresses a webhook may not be delivered to unless WEBHOOKS_ALLOW_PRIVATE=true (docs/webhooks.md: Safe targets):
// what a server-side request forgery would reach (OWASP API7:2023), by the special-purpose registries (RFC 6890; RFC
// 1918, 3927, 6598, 5771; RFC 4193, 4291); documentation ranges (RFC 5737, 3849) reach nothing and are allowed. An
// IPv6 address carrying an IPv4 one (mapped ::ffff:127.0.0.1, RFC 4291 §2.5.5.2; NAT64, 6to4) is judged as that one.

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
      // NAT64 for local use (RFC 8215) and the IETF protocol assignments, Teredo's among them (RFC 4380): neither
      // globally reachable, by the IANA registry.
      ['64:ff9b:1::', 48],
      ['2001::', 23],
    ],
  ],
];

/**
 * The IPv6 networks that carry an IPv4 network's addresses, reaching it through a translator or a relay: NAT64's
 * well-known prefix 64:ff9b::/96 (RFC 6052 §2.1: the last 32 bits) and 6to4's 2002::/16 (RFC 3056 §2: the 32 after).
 */
function embedding(network: string, prefix: number): (readonly [string, number])[] {
  const [a, b, c, d] = network.split('.').map(Number) as [number, number, number, number];
  const high = ((a << 8) | b).toString(16);
  const low = ((c << 8) | d).toString(16);
  return [
    [`64:ff9b::${high}:${low}`, 96 + prefix],
    [`2002:${high}:${low}::`, 16 + prefix],
  ];
}

const LISTS: readonly (readonly [ForbiddenKind, BlockList])[] = RANGES.map(([kind, family, networks]) => {
  const list = new BlockList();
  for (const [network, prefix] of networks) {
    list.addSubnet(network, prefix, family);
    if (family === 'ipv4')
      for (const [embedded, length] of embedding(network, prefix)) list.addSubnet(embedded, length, 'ipv6');
  }
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
