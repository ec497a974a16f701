/**
 * Hosts a tenant names in channel settings (SMTP and IMAP servers) must not lead the server
 * into its own network: loopback, private and shared ranges are refused unless the operator
 * allows them (ALLOW_PRIVATE_HOSTS, for a self-hosted mail server on the LAN), and link-local
 * (cloud metadata at 169.254.169.254), unspecified, multicast and reserved addresses always
 * are. A name is judged by every address it resolves to, and the caller connects to the
 * address that was checked, so a second DNS answer (rebinding) cannot swap it.
 */
import { lookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';

export type HostRules = {
  /** ALLOW_PRIVATE_HOSTS: loopback and private ranges are allowed (link-local never is). */
  allowPrivate: boolean;
};

/** What an address is, as far as reaching it from this server goes. */
export type AddressKind = 'public' | 'loopback' | 'private' | 'link-local' | 'unspecified' | 'reserved';

function blockList(ranges: [string, number, 'ipv4' | 'ipv6'][]): BlockList {
  const list = new BlockList();
  for (const [network, prefix, family] of ranges) list.addSubnet(network, prefix, family);
  return list;
}

const kinds: [Exclude<AddressKind, 'public'>, BlockList][] = [
  [
    'unspecified',
    blockList([
      ['0.0.0.0', 8, 'ipv4'],
      ['::', 128, 'ipv6'],
    ]),
  ],
  [
    'loopback',
    blockList([
      ['127.0.0.0', 8, 'ipv4'],
      ['::1', 128, 'ipv6'],
    ]),
  ],
  [
    'link-local',
    blockList([
      ['169.254.0.0', 16, 'ipv4'],
      ['fe80::', 10, 'ipv6'],
    ]),
  ],
  [
    'private',
    blockList([
      ['10.0.0.0', 8, 'ipv4'],
      ['172.16.0.0', 12, 'ipv4'],
      ['192.168.0.0', 16, 'ipv4'],
      ['100.64.0.0', 10, 'ipv4'], // carrier-grade NAT, shared address space
      ['fc00::', 7, 'ipv6'], // unique local
    ]),
  ],
  [
    'reserved',
    blockList([
      ['192.0.0.0', 24, 'ipv4'],
      ['192.0.2.0', 24, 'ipv4'],
      ['198.18.0.0', 15, 'ipv4'],
      ['198.51.100.0', 24, 'ipv4'],
      ['203.0.113.0', 24, 'ipv4'],
      ['224.0.0.0', 3, 'ipv4'], // multicast, 240/4 and broadcast
      ['ff00::', 8, 'ipv6'],
      ['2001:db8::', 32, 'ipv6'],
      ['fec0::', 10, 'ipv6'], // deprecated site-local
    ]),
  ],
];

/** The eight 16-bit groups of an IPv6 address (a dotted IPv4 tail and a zone allowed); null when it is not one. */
function ipv6Groups(address: string): number[] | null {
  let text = address.replace(/%.*$/, '').toLowerCase();
  const dotted = /^(.*:)(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    if (isIP(dotted[2]) !== 4) return null;
    const [a, b, c, d] = dotted[2].split('.').map(Number);
    text = `${dotted[1]}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const halves = text.split('::');
  if (halves.length > 2) return null;
  const part = (half: string) => (half === '' ? [] : half.split(':').map((g) => parseInt(g, 16)));
  const head = part(halves[0]);
  const tail = halves.length === 2 ? part(halves[1]) : [];
  const groups = halves.length === 2 ? [...head, ...Array(8 - head.length - tail.length).fill(0), ...tail] : head;
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff) ? groups : null;
}

const dottedOf = (high: number, low: number) => [high >> 8, high & 255, low >> 8, low & 255].join('.');

/**
 * The IPv4 address an IPv6 one carries to reach it: IPv4-mapped (::ffff:0:0/96) and -translated
 * (::ffff:0:0:0/96), NAT64 (64:ff9b::/96, RFC 6052), 6to4 (2002::/16, RFC 3056: the router's
 * IPv4 address in bits 16–47) and ISATAP interface identifiers (…:0:5efe:a.b.c.d, …:200:5efe:…).
 * On a host with a NAT64 gateway or a 6to4 relay each of them reaches that IPv4 address.
 */
function embeddedIpv4(address: string): string | null {
  const g = ipv6Groups(address);
  if (!g) return null;
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 5) && g[5] === 0xffff) return dottedOf(g[6], g[7]);
  if (zeros(0, 4) && g[4] === 0xffff && g[5] === 0) return dottedOf(g[6], g[7]);
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return dottedOf(g[6], g[7]);
  if (g[0] === 0x2002) return dottedOf(g[1], g[2]);
  if ((g[4] === 0 || g[4] === 0x200) && g[5] === 0x5efe) return dottedOf(g[6], g[7]);
  return null;
}

/**
 * IPv6 ranges refused whatever they carry: IPv4-compatible addresses (::/96, deprecated by
 * RFC 4291: some stacks still route ::127.0.0.1 to 127.0.0.1), the local-use NAT64 prefix
 * (64:ff9b:1::/48, RFC 8215: a translator into the operator's own network, its IPv4 address at
 * a prefix-dependent place), Teredo (2001::/32, its IPv4 address obfuscated) and discard-only
 * (100::/64). Checked after unspecified (::) and loopback (::1), which ::/96 contains.
 */
const ipv6Reserved = blockList([
  ['::', 96, 'ipv6'],
  ['64:ff9b:1::', 48, 'ipv6'],
  ['2001::', 32, 'ipv6'],
  ['100::', 64, 'ipv6'],
]);

export function addressKind(address: string): AddressKind {
  const family = isIP(address);
  if (family === 0) throw new Error(`not an IP address: ${address}`);
  if (family === 4) return kindOf(address, 'ipv4');
  const own = kindOf(address, 'ipv6');
  if (own !== 'public') return own;
  if (ipv6Reserved.check(address, 'ipv6')) return 'reserved';
  // An address carrying an IPv4 one is as reachable as that address is.
  const v4 = embeddedIpv4(address);
  return v4 ? kindOf(v4, 'ipv4') : 'public';
}

function kindOf(address: string, type: 'ipv4' | 'ipv6'): AddressKind {
  for (const [kind, list] of kinds) if (list.check(address, type)) return kind;
  return 'public';
}

/** What is wrong with reaching an address under `rules` ("a loopback address"), or null when nothing is. */
export function addressRefusal(address: string, rules: HostRules): string | null {
  const kind = addressKind(address);
  if (kind === 'public') return null;
  if ((kind === 'loopback' || kind === 'private') && rules.allowPrivate) return null;
  return {
    loopback: 'a loopback address',
    private: 'a private network address',
    'link-local': 'a link-local address',
    unspecified: 'an unspecified address',
    reserved: 'a reserved address',
  }[kind];
}

/** A host that may not be used, or that does not resolve: `reason` is for the channel owner. */
export class HostRefusedError extends Error {
  /** True when the name has no address at all (may be a typo, or DNS being down). */
  readonly unresolved: boolean;
  constructor(reason: string, unresolved = false) {
    super(reason);
    this.unresolved = unresolved;
  }
}

export type CheckedHost = { host: string; address: string; family: 4 | 6 };

/** The host's addresses (an IP literal is its own); throws HostRefusedError (unresolved) when there are none. */
async function addressesOf(host: string): Promise<{ address: string; family: 4 | 6 }[]> {
  const bare = host.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(bare);
  if (family !== 0) return [{ address: bare, family: family as 4 | 6 }];
  try {
    const found = await lookup(host, { all: true, verbatim: true });
    if (found.length > 0) return found.map((a) => ({ address: a.address, family: a.family as 4 | 6 }));
  } catch {
    // ENOTFOUND, ENODATA, a resolver failure: reported below as one reason
  }
  throw new HostRefusedError(`${host} cannot be resolved`, true);
}

/**
 * Resolves `host` once and returns the address to connect to. Every address the name has must
 * be allowed (a name answering with one public and one internal address is refused), so the
 * choice among them never matters. Throws HostRefusedError with the reason.
 */
export async function checkHost(host: string, rules: HostRules, purpose = 'channel settings'): Promise<CheckedHost> {
  const name = host.trim();
  const addresses = await addressesOf(name);
  for (const { address } of addresses) {
    const refusal = addressRefusal(address, rules);
    if (!refusal) continue;
    const literal = address === name.replace(/^\[(.*)\]$/, '$1');
    // Loopback and private networks are the operator's to allow: say which setting does.
    const kind = addressKind(address);
    const hint = kind === 'loopback' || kind === 'private' ? ' (the server setting ALLOW_PRIVATE_HOSTS=true allows it)' : '';
    throw new HostRefusedError(`${literal ? `${address} is` : `${name} resolves to ${address},`} ${refusal}, which ${purpose} may not use${hint}`);
  }
  return { host: name, ...addresses[0] };
}
