/** Password hashing with bcrypt. Unknown e-mails are checked against a throwaway hash so both failure cases take similar time. */
import { randomBytes } from 'node:crypto';
import bcrypt from 'bcrypt';

let decoy: Promise<string> | undefined;

export function hashPassword(password: string, rounds: number): Promise<string> {
  return bcrypt.hash(password, rounds);
}

/** Compares against the hash, or against a decoy hash of the same cost when there is none. */
export async function verifyPassword(password: string, hash: string | null, rounds: number): Promise<boolean> {
  if (hash) return bcrypt.compare(password, hash);
  decoy ??= bcrypt.hash(randomBytes(16).toString('hex'), rounds);
  await bcrypt.compare(password, await decoy);
  return false;
}
