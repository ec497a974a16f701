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

/** The IPv4 address inside an IPv4-mapped (::ffff:a.b.c.d) or NAT64 (64:ff9b::a.b.c.d) IPv6 address. */
function embeddedIpv4(address: string): string | null {
  const match = /^(?:::ffff:|64:ff9b::)(?:0:)?(.+)$/i.exec(address);
  if (!match) return null;
  const tail = match[1];
  if (isIP(tail) === 4) return tail;
  const hex = /^([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i.exec(tail);
  if (!hex) return null;
  const high = parseInt(hex[1], 16);
  const low = parseInt(hex[2], 16);
  return [high >> 8, high & 255, low >> 8, low & 255].join('.');
}

export function addressKind(address: string): AddressKind {
  const family = isIP(address);
  if (family === 0) throw new Error(`not an IP address: ${address}`);
  const v4 = family === 6 ? embeddedIpv4(address) : address;
  const [checked, type] = v4 ? [v4, 'ipv4' as const] : [address, 'ipv6' as const];
  for (const [kind, list] of kinds) if (list.check(checked, type)) return kind;
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
