import test from 'ava';
import { randomBytes } from 'node:crypto';
import { decryptJson, DecryptError, encryptJson } from '../core/crypto.ts';

const key = randomBytes(32);

test('round trip of a config object', (t) => {
  const value = { bot_token: '123456:ABC-def_ghi', nested: { n: 1, list: [true, null] }, unicode: 'ünïcødé ✓' };
  const sealed = encryptJson(key, value);
  t.deepEqual(decryptJson(key, sealed), value);
});

test('versioned format with a fresh 12-byte IV and 16-byte tag every time', (t) => {
  const a = encryptJson(key, { bot_token: 'same' });
  const b = encryptJson(key, { bot_token: 'same' });
  t.not(a, b);
  const parts = a.split('.');
  t.is(parts.length, 4);
  t.is(parts[0], 'v1');
  t.is(Buffer.from(parts[1], 'base64url').length, 12);
  t.is(Buffer.from(parts[2], 'base64url').length, 16);
  t.false(a.includes('same'));
  t.false(Buffer.from(parts[3], 'base64url').toString('utf8').includes('same'));
});

test('a wrong key is refused', (t) => {
  const sealed = encryptJson(key, { secret: 'x' });
  t.throws(() => decryptJson(randomBytes(32), sealed), { instanceOf: DecryptError });
});

test('tampering with ciphertext, tag or iv is detected', (t) => {
  const sealed = encryptJson(key, { secret: 'value' });
  const parts = sealed.split('.');
  for (const index of [1, 2, 3]) {
    const bytes = Buffer.from(parts[index], 'base64url');
    bytes[0] ^= 1;
    const altered = [...parts];
    altered[index] = bytes.toString('base64url');
    t.throws(() => decryptJson(key, altered.join('.')), { instanceOf: DecryptError }, `part ${index}`);
  }
});

test('foreign formats are refused', (t) => {
  t.throws(() => decryptJson(key, '{"bot_token":"plain"}'), { instanceOf: DecryptError });
  t.throws(() => decryptJson(key, 'v2.a.b.c'), { instanceOf: DecryptError });
  t.throws(() => decryptJson(key, 'v1.short.tag.ct'), { instanceOf: DecryptError });
});

test('keys must be 32 bytes', (t) => {
  t.throws(() => encryptJson(randomBytes(16), {}), { message: /32 bytes/ });
  t.throws(() => decryptJson(randomBytes(31), encryptJson(key, {})), { message: /32 bytes/ });
});
