/** lib/host-safety.ts: which addresses channel settings may lead the server to. */
import test from 'ava';
import { addressKind, checkHost, HostRefusedError, type AddressKind } from '../lib/host-safety.ts';

const strict = { allowPrivate: false };
const lan = { allowPrivate: true };

test('addresses are classified, IPv4 inside IPv6 included', (t) => {
  const cases: [string, AddressKind][] = [
    ['8.8.8.8', 'public'],
    ['2606:4700::1111', 'public'],
    ['127.0.0.1', 'loopback'],
    ['127.8.9.10', 'loopback'],
    ['::1', 'loopback'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['10.0.0.5', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['100.64.0.1', 'private'],
    ['fd12::1', 'private'],
    ['169.254.169.254', 'link-local'],
    ['fe80::1', 'link-local'],
    ['::ffff:a9fe:a9fe', 'link-local'],
    ['::ffff:169.254.169.254', 'link-local'],
    ['64:ff9b::169.254.169.254', 'link-local'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['0.1.2.3', 'unspecified'],
    ['224.0.0.1', 'reserved'],
    ['255.255.255.255', 'reserved'],
    ['ff02::1', 'reserved'],
    ['172.32.0.1', 'public'],
    ['11.0.0.1', 'public'],
  ];
  for (const [address, kind] of cases) t.is(addressKind(address), kind, address);
});

test('strict: loopback, private, link-local and unspecified hosts are refused with the reason', async (t) => {
  for (const [host, reason] of [
    ['127.0.0.1', /127\.0\.0\.1 is a loopback address/],
    ['10.1.2.3', /private network/],
    ['169.254.169.254', /link-local/],
    ['0.0.0.0', /unspecified/],
    ['[::1]', /loopback/],
    ['localhost', /localhost resolves to (127\.0\.0\.1|::1), a loopback address/],
  ] as const) {
    const error = await t.throwsAsync(checkHost(host, strict), { instanceOf: HostRefusedError }, host);
    t.regex(error!.message, reason, host);
    t.false(error!.unresolved);
    // Loopback and private networks name the setting that allows them; the others cannot be allowed.
    const allowable = /loopback|private/.test(error!.message);
    t.is(error!.message.endsWith('(the server setting ALLOW_PRIVATE_HOSTS=true allows it)'), allowable, host);
  }
  t.deepEqual(await checkHost('8.8.8.8', strict), { host: '8.8.8.8', address: '8.8.8.8', family: 4 });
});

test('ALLOW_PRIVATE_HOSTS lets loopback and private through, never link-local or unspecified', async (t) => {
  t.like(await checkHost('127.0.0.1', lan), { address: '127.0.0.1' });
  t.like(await checkHost('192.168.10.20', lan), { address: '192.168.10.20' });
  t.like(await checkHost('localhost', lan), { host: 'localhost' });
  for (const host of ['169.254.169.254', 'fe80::1', '0.0.0.0', '::']) await t.throwsAsync(checkHost(host, lan), { instanceOf: HostRefusedError }, host);
});

test('a name that does not resolve is reported as unresolved', async (t) => {
  const error = await t.throwsAsync(checkHost('no-such-host.invalid', strict), { instanceOf: HostRefusedError });
  t.true(error!.unresolved);
  t.regex(error!.message, /cannot be resolved/);
});

test('IPv6 forms that reach an IPv4 address are judged by it, and the ranges that hide one are refused (issue #36 item 9)', async (t) => {
  const cases: [string, AddressKind][] = [
    // IPv4-compatible (::/96, deprecated): some stacks route it to the IPv4 address.
    ['::127.0.0.1', 'reserved'],
    ['::7f00:1', 'reserved'],
    ['::8.8.8.8', 'reserved'],
    // Local-use NAT64 (64:ff9b:1::/48): a translator into the operator's network.
    ['64:ff9b:1::7f00:1', 'reserved'],
    ['64:ff9b:1:ffff::a00:1', 'reserved'],
    // Well-known NAT64 and 6to4 carry the IPv4 address: judged by it (DNS64 gives public sites such addresses).
    ['64:ff9b::7f00:1', 'loopback'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['64:ff9b::8.8.8.8', 'public'],
    ['2002:7f00:1::', 'loopback'],
    ['2002:a9fe:a9fe::1', 'link-local'],
    ['2002:c0a8:101::1', 'private'],
    ['2002:808:808::1', 'public'],
    // IPv4-translated, ISATAP, Teredo, discard-only.
    ['::ffff:0:10.0.0.1', 'private'],
    ['2606:4700::5efe:192.168.1.1', 'private'],
    ['2606:4700::200:5efe:7f00:1', 'loopback'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'reserved'],
    ['100::1', 'reserved'],
  ];
  for (const [address, kind] of cases) t.is(addressKind(address), kind, address);
  for (const host of ['[::127.0.0.1]', '[64:ff9b:1::7f00:1]', '[2002:7f00:1::]']) {
    await t.throwsAsync(checkHost(host, strict), { instanceOf: HostRefusedError }, host);
  }
  // ALLOW_PRIVATE_HOSTS lets a 6to4 form of loopback through as it lets loopback; the refused ranges never.
  t.like(await checkHost('[2002:7f00:1::]', lan), { address: '2002:7f00:1::' });
  for (const host of ['[::127.0.0.1]', '[64:ff9b:1::7f00:1]']) await t.throwsAsync(checkHost(host, lan), { instanceOf: HostRefusedError }, host);
});
