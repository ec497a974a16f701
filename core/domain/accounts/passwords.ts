/** Password hashing with bcrypt. Unknown e-mails are checked against a throwaway hash so both failure cases take similar time. */
import { randomBytes } from 'node:crypto';
import bcrypt from 'bcrypt';

let decoy: Promise<string> | undefined;

export function hashPassword(password: string, rounds: number): Promise<string> {
  return bcrypt.hash(password, rounds);
}

/** bcrypt reads only the first 72 bytes; register refuses longer passwords (decisions.md). */
export const MAX_PASSWORD_BYTES = 72;

/**
 * Compares against the hash, or against a decoy hash of the same cost when there is none. A
 * password over 72 bytes never matches: bcrypt would ignore its tail, so a stored 72-byte
 * password followed by anything would be accepted.
 */
export async function verifyPassword(password: string, hash: string | null, rounds: number): Promise<boolean> {
  if (hash) {
    const matches = await bcrypt.compare(password, hash);
    return matches && Buffer.byteLength(password, 'utf8') <= MAX_PASSWORD_BYTES;
  }
  decoy ??= bcrypt.hash(randomBytes(16).toString('hex'), rounds);
  await bcrypt.compare(password, await decoy);
  return false;
}
